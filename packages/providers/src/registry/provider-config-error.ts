import { ConfigurationError } from '@nanobot/schema';

/** Why a provider configuration was refused. */
export type ProviderConfigProblem =
  | 'unknown_provider'
  | 'missing_key'
  | 'missing_base_url'
  | 'malformed'
  | 'oauth_only'
  | 'transcription_only'
  | 'nothing_configured'
  | 'no_default_model';

/**
 * A provider configuration that cannot work, naming the field at fault (`providers.deepseek.apiKey`,
 * `provider`, `model`). Code `CONFIGURATION_ERROR` like every configuration error; `problem` says
 * which rule it broke.
 */
export class ProviderConfigError extends ConfigurationError {
  /** The config field at fault, as the user writes it (`providers.openrouter.apiBase`). */
  readonly field: string;
  readonly problem: ProviderConfigProblem;

  constructor(problem: ProviderConfigProblem, field: string, message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.problem = problem;
    this.field = field;
  }
}
