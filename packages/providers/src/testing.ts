export { ScriptedProvider, scriptedError } from './scripted-provider.js';
export type { ScriptedProviderOptions, ScriptedReply, ScriptedToolCall, ScriptStep } from './scripted-provider.js';
