/**
 * Host lists a `network.presets` entry expands to: each host an `allow` rule for any method. Data a reviewer
 * can check against each tool's documentation; docs/dialects.md lists them.
 *
 * Why any method and not `read`: the sandbox's proxy sees a CONNECT for HTTPS and cannot tell a download
 * from an upload (it asks as `write`), so a read-only preset would break `npm install` inside the sandbox.
 * A policy that wants pushes or publishes asked for adds `{host: github.com, action: prompt, method: write}`,
 * which outranks the preset (a rule with a method is more specific than one without).
 */
export const NETWORK_PRESETS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  // npm, pnpm and yarn classic download from the registry; yarn berry fetches plugins from repo.yarnpkg.com.
  npm: ['registry.npmjs.org', 'registry.yarnpkg.com', 'repo.yarnpkg.com'],
  // pip: the simple index on pypi.org, the files on files.pythonhosted.org.
  pypi: ['pypi.org', 'files.pythonhosted.org'],
  // cargo: the sparse index, the crate downloads, the API.
  crates: ['crates.io', 'index.crates.io', 'static.crates.io'],
  // go: GOPROXY and GOSUMDB defaults.
  go: ['proxy.golang.org', 'sum.golang.org'],
  // Maven Central and the Gradle plugin portal / wrapper downloads.
  maven: ['repo.maven.apache.org', 'repo1.maven.org', 'plugins.gradle.org', 'services.gradle.org'],
  rubygems: ['rubygems.org', 'index.rubygems.org'],
  nuget: ['api.nuget.org'],
  // git over HTTPS and SSH, the API, release and raw downloads.
  github: [
    'github.com',
    'api.github.com',
    'codeload.github.com',
    'raw.githubusercontent.com',
    'objects.githubusercontent.com',
  ],
  gitlab: ['gitlab.com'],
  bitbucket: ['bitbucket.org', 'api.bitbucket.org'],
});
