import { NanobotError } from '@nanobot/schema';

/** An MCP server could not be reached, started or initialised (spawn failure, refused connection, handshake timeout). */
export class McpConnectionError extends NanobotError {
  /** Name of the server as configured. */
  readonly server: string;

  constructor(server: string, message: string, options: { cause?: unknown } = {}) {
    super('MCP_CONNECTION_FAILED', message, options);
    this.server = server;
  }
}

/** The source was used after `close()`; a programmer error, not something the model should see. */
export class McpClosedError extends NanobotError {
  constructor(message = 'McpToolSource is closed') {
    super('MCP_CLOSED', message);
  }
}
