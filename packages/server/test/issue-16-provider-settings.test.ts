// The server composes the settings its providers declare with its own at startup: a provider's invalid
// variable fails startup with configuration_invalid naming the variable, the value and the accepted form.
import { describe, expect, it } from '@jest/globals';
import { defineSettings, integerSetting } from '@rea/provider-kit';
import type { Provider } from '@rea/provider-kit';
import { createReaServer } from '@rea/server';

const settings = defineSettings('tracer', {
  tracerBudget: integerSetting('REA_TRACER_BUDGET', {
    fallback: 10,
    min: 1,
    max: 100,
    description: 'Events kept per trace.',
  }),
});

const tracer: Provider = {
  id: 'tracer',
  name: 'Tracer (test only)',
  version: '1.0.0',
  kind: 'tools',
  capabilities: [],
  settings,
  probe: async () => ({ status: 'ready' }),
  tools: () => [],
};

const accepted = 'a decimal integer from 1 to 100 (digits only, no leading zero)';

describe('issue 16: composed settings at server startup', () => {
  it("should fail startup on a provider's invalid variable, naming the variable, value and accepted form", () => {
    for (const value of ['0', '101', 'ten', '']) {
      expect(() =>
        createReaServer({
          providers: [tracer],
          package: { name: 'unit', version: '1' },
          env: { REA_TRACER_BUDGET: value },
        }),
      ).toThrow(
        expect.objectContaining({
          code: 'configuration_invalid',
          message: `REA_TRACER_BUDGET="${value}" is not ${accepted}.`,
          details: { variable: 'REA_TRACER_BUDGET', value, accepted },
        }),
      );
    }
  });

  it('should check the declarations given for a lazily loaded composition at startup', () => {
    expect(() =>
      createReaServer({
        load: async () => ({ providers: [tracer] }),
        settings: [settings],
        package: { name: 'unit', version: '1' },
        env: { REA_TRACER_BUDGET: '1000' },
      }),
    ).toThrow(
      expect.objectContaining({ code: 'configuration_invalid', details: expect.objectContaining({ value: '1000' }) }),
    );
  });

  it('should start with a valid value, and ignore the variable when no provider declares it', async () => {
    const server = createReaServer({
      providers: [tracer],
      package: { name: 'unit', version: '1' },
      env: { REA_TRACER_BUDGET: '42' },
    });
    await server.close();
    const without = createReaServer({
      providers: [],
      package: { name: 'unit', version: '1' },
      env: { REA_TRACER_BUDGET: 'ten' },
    });
    await without.close();
  });
});
