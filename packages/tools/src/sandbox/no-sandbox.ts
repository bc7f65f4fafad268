import type { Sandbox, SandboxCommand, SpawnPlan } from './sandbox.js';

/** Runs the command directly on the host, as the reference does: only the guard stands in front. */
export class NoSandbox implements Sandbox {
  readonly name = 'none';
  readonly isolated = false;

  /** The command's own argv, cwd and env; pure. */
  wrap(command: SandboxCommand): SpawnPlan {
    return { file: command.argv[0], args: command.argv.slice(1), cwd: command.cwd, env: { ...command.env }, contained: false };
  }
}
