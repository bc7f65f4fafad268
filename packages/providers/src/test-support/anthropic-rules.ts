// The Messages API's rules for a request body (prompt-caching limits included), from the one
// rule set in @nanobot-internal/provider-wire, for this package's checking wire server.
// Thinking signatures are not verified here (the tests' histories carry made-up ones).
import { cacheControlPaths, checkAnthropicMessages } from '@nanobot-internal/provider-wire';
import type { Handler } from './wire-server.js';
import { json } from './wire-server.js';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

export { cacheControlPaths };

/** Every rule `body` breaks (empty: the API would accept it). */
export function anthropicBodyViolations(body: Rec): string[] {
  return checkAnthropicMessages(body, { verifySignatures: false }).map((v) => v.message);
}

/**
 * A handler that checks the body against {@link anthropicBodyViolations} and answers the API's
 * 400 `invalid_request_error` for the first breach, else `reply` (a Messages API JSON body).
 */
export function replyCheckedAnthropic(reply: Rec): Handler {
  return (req, res) => {
    const problems = isRec(req.body) ? anthropicBodyViolations(req.body) : ['body must be a JSON object'];
    if (problems.length > 0) return json(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: problems[0] } });
    json(res, 200, reply);
  };
}
