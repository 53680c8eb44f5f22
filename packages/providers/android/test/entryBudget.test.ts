// The one entry-budget selection both package loaders use (central directory and inventory).
import { expect, it } from '@jest/globals';
import type { Limitation } from '@rea/evidence';
import { EntryBudget, MAX_ENTRY_BYTES, MAX_TOTAL_BYTES, MAX_XML_RESOURCE } from '../src/package/units.js';

it('takes entries within the budgets, skips large XML resources and reports what does not fit', () => {
  const limitations: Limitation[] = [];
  const budget = new EntryBudget(limitations);
  budget.offer('AndroidManifest.xml', 'AndroidManifest.xml', 4096);
  budget.offer('res/xml/big.xml', 'res/xml/big.xml', MAX_XML_RESOURCE + 1);
  budget.offer('classes.dex', 'classes.dex', MAX_ENTRY_BYTES + 1);
  // Four entries of the largest size fill the package budget; the fifth no longer fits.
  for (let i = 2; i <= 6; i++) budget.offer(`classes${i}.dex`, `classes${i}.dex`, MAX_ENTRY_BYTES);
  expect(MAX_TOTAL_BYTES).toBe(4 * MAX_ENTRY_BYTES);
  expect(budget.selected).toEqual(['AndroidManifest.xml', 'classes2.dex', 'classes3.dex', 'classes4.dex']);
  expect(limitations.map((l) => [l.kind, l.scope])).toEqual([
    ['entry-too-large', 'classes.dex'],
    ['entry-too-large', 'classes5.dex'],
    ['entry-too-large', 'classes6.dex'],
  ]);
});
