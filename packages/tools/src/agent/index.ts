/** Tools that act on the agent around them: message the user, spawn a subagent, schedule cron jobs. */
export { createMessageTool, createMessageSpec } from './message-tool.js';
export type { MessageArgs, MessageSender, MessageToolOptions, OutboundMessage } from './message-tool.js';
export { createSpawnTool, createSpawnSpec, defaultSpawnLabel } from './spawn-tool.js';
export type { SpawnArgs, SpawnOutcome, SpawnRequest, SubagentSpawner } from './spawn-tool.js';
export { createCronTool, createCronSpec, isValidTimezone, wallClockToMs } from './cron-tool.js';
export type { CronArgs, CronJob, CronJobSpec, CronJobState, CronSchedule, CronScheduler, CronToolOptions } from './cron-tool.js';
