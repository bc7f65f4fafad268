export { governModelMessages } from './govern-model-messages.js';
export type { GovernModelMessagesOptions, GovernModelMessagesResult } from './govern-model-messages.js';
export { modelMessagesToGovernor } from './model-messages-to-governor.js';
export { governorMiddleware } from './governor-middleware.js';
export type { GovernorMiddlewareOptions, GovernedCallOptions, GovernedPrompt } from './governor-middleware.js';
export { governorTargetFor } from './governor-target-for.js';
export { aiSdkToolTraits, nanobotToolTraits, NANOBOT_PROVIDER_OPTIONS_KEY } from './tool-traits.js';
export type { NanobotToolProviderOptions } from './tool-traits.js';
