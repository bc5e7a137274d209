import { type Access, isWithin } from '@toolgate/core';

/** Where a path leads once the links this command line creates exist, or why that cannot be known. */
export type Redirection = { through: string } | { uncertain: string };

/**
 * Changes a command line makes to the filesystem that later parts of the same line go through, but that do
 * not exist yet when we resolve paths: links it creates (`ln -s /etc d && cat d/passwd`) and directories it
 * fills with content it does not control (`tar -x`, `unzip`, `git clone`), where unseen links may lie.
 */
export class PlannedChanges {
  private readonly links: { path: string; target: string | null }[] = [];
  private readonly tainted: string[] = [];

  get empty(): boolean {
    return this.links.length === 0 && this.tainted.length === 0;
  }

  /** `paths`: the link's lexical and real locations; `target`: the real path it points to, `null` unknown. */
  addLink(paths: readonly string[], target: string | null): void {
    for (const path of paths) this.links.push({ path, target });
  }

  addTainted(paths: readonly string[]): void {
    this.tainted.push(...paths);
  }

  /** The other paths an access really reaches through planned links, or why it is uncertain. */
  redirections(access: Access): Redirection[] {
    const out: Redirection[] = [];
    for (const link of this.links) {
      const hit = [access.path, access.realPath].find((p) => p !== null && isWithin(p, link.path));
      // An operation on the link itself (`rm d`) does not go through it.
      if (hit === undefined || hit === null || (access.onLink && access.path === link.path)) continue;
      if (link.target === null)
        out.push({ uncertain: 'the path goes through a link this command creates, to an unknown target' });
      else out.push({ through: link.target + hit.slice(link.path.length) });
    }
    for (const t of this.tainted) {
      if (isWithin(access.path, t) || (access.realPath !== null && isWithin(access.realPath, t))) {
        out.push({
          uncertain: `the path lies inside ${t}, which this command fills with files (and links) we cannot see`,
        });
      }
    }
    return out;
  }

  /** Where a `cd` to `real` lands: through a planned link, or unknown inside tainted content. */
  cwd(real: string, resolve: (path: string) => string | null): string | null {
    for (const t of this.tainted) if (isWithin(real, t)) return null;
    for (const link of this.links) {
      if (!isWithin(real, link.path)) continue;
      return link.target === null ? null : resolve(link.target + real.slice(link.path.length));
    }
    return real;
  }
}
