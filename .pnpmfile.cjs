// pnpm hooks for this workspace.
//
// beforePacking (pnpm ≥ 10.28) shapes the package.json that `pnpm pack` / `pnpm publish` put in
// the tarball, without touching the file in the repository: a published manifest carries what
// installing and running the package needs, not how we develop it. `devDependencies` go (they
// name the unpublished `@nanobot-internal/test-support`, and npm would show them to users as if
// they mattered), and so do the `scripts` (build, typecheck, test: they run only inside this
// repository and name files that are not in the tarball). scripts/pack-smoke.mjs checks the result.
/* global module */
'use strict';

/** The published manifest of `pkg`: a new object, `pkg` itself is left as it was. */
function beforePacking(pkg) {
  const { devDependencies: _devDependencies, scripts: _scripts, ...published } = pkg;
  return published;
}

module.exports = { hooks: { beforePacking } };
