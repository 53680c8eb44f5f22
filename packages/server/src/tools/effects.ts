/** Every effect flag false, to spread and override (the provider-kit preset). */
export { NO_EFFECTS } from '@rea/provider-kit';
