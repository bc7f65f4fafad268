export { AgentRunner } from './agent-runner.js';
export type { AgentRunnerOptions } from './agent-runner.js';
export type { AgentRunSpec, AgentRunResult, CheckpointPayload, CheckpointPhase } from './run-spec.js';
export { runSettingsOf } from './run-settings.js';
export type { RunSettings } from './run-settings.js';
export type {
  RunnerEvent,
  EventSink,
  StopReason,
  ToolEvent,
  ToolEventStatus,
  AccumulatedUsage,
  ModelRequestPurpose,
} from './runner-events.js';
export { EventDispatcher } from './event-dispatcher.js';
export type {
  RunnerHooks,
  BeforeModelContext,
  AfterModelContext,
  BeforeToolContext,
  AfterToolContext,
  ToolOverride,
} from './runner-hooks.js';
export type { RunnerToolRegistry, RunnerToolContext, GovernFn, RunnerGovernOptions, GovernedRequest, GovernedObserver } from './runner-ports.js';
export { planToolBatches } from './plan-tool-batches.js';
export {
  externalLookupSignature,
  repeatedExternalLookupError,
  REPEATED_EXTERNAL_LOOKUP_ERROR,
  MAX_IDENTICAL_EXTERNAL_LOOKUPS,
} from './external-lookup.js';
export { buildAssistantMessage } from './build-assistant-message.js';
export type { AssistantMessageParts } from './build-assistant-message.js';
export { classifyViolation } from './classify-violation.js';
export type { Violation } from './classify-violation.js';
export { workspaceTargetSignature } from './workspace-target-signature.js';
export { toOpenAIToolCall } from './to-openai-tool-call.js';
export {
  TOOL_ERROR_HINT,
  DEFAULT_ERROR_MESSAGE,
  FINALIZATION_RETRY_PROMPT,
  EMPTY_FINAL_RESPONSE_MESSAGE,
  MAX_ITERATIONS_FINALIZE_PROMPT,
  DEFAULT_MAX_ITERATIONS_MESSAGE,
  LENGTH_RECOVERY_PROMPT,
  MALFORMED_TOOL_CALLS_PROMPT,
  ARREARAGE_MESSAGE,
  SSRF_NOTE,
  TOOL_INTERRUPTED_RESULT,
  TURN_INTERRUPTED_REPLY,
  MODEL_ERROR_PLACEHOLDER,
  workspaceEscalationMessage,
  lengthRecoveryMessage,
} from './runner-texts.js';
export { MessageBus, inboundSessionKey, isUserInput } from './bus/index.js';
export type { AgentBus, InboundMessage, OutboundMessage, TurnOutcome } from './bus/index.js';
export { AsyncQueue } from './async-queue.js';
export { KeyedScheduler } from './keyed-scheduler.js';
export { parseSlashCommand } from './slash-commands.js';
export { validateInbound } from './validate-inputs.js';
export type { SlashCommandSpec, ParsedInput } from './slash-commands.js';
export { AgentLoop, LOOP_COMMANDS, repairTail } from './agent-loop.js';
export type { AgentLoopOptions, LoopContextBuilder, LoopExecSessions, LoopSubagents, ToolDelivery } from './agent-loop.js';
export {
  SubagentManager,
  SUBAGENT_NO_RESPONSE,
  defaultSubagentPrompt,
  subagentAnnouncement,
  subagentResultText,
} from './subagent-manager.js';
export type { SubagentManagerOptions, SubagentRequest, SubagentOutcome } from './subagent-manager.js';
export { createAgent, defaultArtifactsDir, defaultSessionsDir } from './create-agent.js';
export type { Agent, AskOptions, CreateAgentOptions } from './create-agent.js';
export { CronService } from './cron-service.js';
export type { CronRun, CronServiceOptions } from './cron-service.js';
export { JsonCronStore, CronStoreError } from './json-cron-store.js';
export { JsonModelFactsStore, MODEL_FACTS_FILE, defaultModelFactsFile } from './model-facts/json-model-facts-store.js';
export type { CronStore } from './json-cron-store.js';
export { nextCronRun } from './next-cron-run.js';
export type { CronJob, CronJobSpec, CronSchedule } from '@nanobot/tools';
