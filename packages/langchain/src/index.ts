export { governBaseMessages } from './govern-base-messages.js';
export type { GovernBaseMessagesOptions, GovernBaseMessagesResult } from './govern-base-messages.js';
export { governorMiddleware } from './governor-middleware.js';
export type { GovernorMiddlewareOptions } from './governor-middleware.js';
export { governorTargetForChatModel } from './governor-target-for.js';
