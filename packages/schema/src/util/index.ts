/** Internal helpers of this package (not exported from `@nanobot/schema`). */
export { isRecord } from './is-record.js';
export { detachString } from './detach-string.js';
