// pnpm hook (pnpm-workspace.yaml `pnpmfile`). @anthropic-ai/claude-code declares engines.node >=22, and this
// repository installs with engine-strict (.npmrc) on Node 20. The package's `claude` is a native binary that its
// postinstall (install.cjs, plain CommonJS that runs on Node 20) copies from the platform package
// (@anthropic-ai/claude-code-linux-x64, …); no Node process runs the CLI. So the engines field of that one
// package, at the version test/assistants/claudeCode.e2e.test.ts pins, is dropped: the lockfile records none and
// `pnpm install --frozen-lockfile` passes on Node 20; every other package keeps engine-strict.
// pnpm checks the registry's metadata before this hook runs, so changing the pinned version takes, once:
//   pnpm --filter @toolgate/integration-tests add -D @anthropic-ai/claude-code@X --config.node-version=22.12.0
// after updating the version below (a check against Node 22 for that one resolution, never written anywhere).
module.exports = {
  hooks: {
    readPackage(pkg) {
      if (pkg.name === '@anthropic-ai/claude-code' && pkg.version === '2.1.332' && pkg.engines) {
        const { node: _node, ...rest } = pkg.engines;
        pkg.engines = rest;
      }
      return pkg;
    },
  },
};
