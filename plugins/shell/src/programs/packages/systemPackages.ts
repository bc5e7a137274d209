import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import { literal } from '../spec.js';

/**
 * System package managers, from their manuals: a subcommand that installs, removes or upgrades packages
 * writes the system's program directories and the manager's database (`/usr`, `/etc`, `/var/lib/<db>`);
 * one that only refreshes the index writes the database; queries (`list`, `show`, `search`, `policy`,
 * `info`…) touch nothing of the policy's. Anything else stays an unknown command's operands.
 */
interface Manager {
  /** Subcommands (or dpkg/pacman operations) that change installed packages. */
  changes: RegExp;
  /** Subcommands that only refresh the package index. */
  refreshes?: RegExp;
  /** Subcommands that only read. */
  queries: RegExp;
  /** Where a change lands. */
  writes: readonly string[];
  database: string;
}

const DPKG_LIKE = ['/usr', '/etc'];

const MANAGERS: Record<string, Manager> = {
  'apt-get': {
    changes:
      /^(install|reinstall|remove|purge|autoremove|autopurge|upgrade|dist-upgrade|full-upgrade|build-dep|satisfy|dselect-upgrade)$/,
    refreshes: /^(update|clean|autoclean)$/,
    queries: /^(check|changelog|indextargets|-v|--version|-h|--help)$/,
    writes: DPKG_LIKE,
    database: '/var/lib/dpkg',
  },
  apt: {
    changes:
      /^(install|reinstall|remove|purge|autoremove|autopurge|upgrade|full-upgrade|dist-upgrade|satisfy)$/,
    refreshes: /^(update|clean|autoclean)$/,
    queries: /^(list|search|show|showsrc|policy|depends|rdepends|changelog|-v|--version|-h|--help)$/,
    writes: DPKG_LIKE,
    database: '/var/lib/dpkg',
  },
  dpkg: {
    changes: /^(-i|--install|-r|--remove|-P|--purge|--configure|--unpack|-a|--pending|--set-selections)$/,
    queries:
      /^(-l|--list|-L|--listfiles|-s|--status|-S|--search|-p|--print-avail|-c|--contents|-I|--info|--version|--help|--get-selections|--print-architecture)$/,
    writes: DPKG_LIKE,
    database: '/var/lib/dpkg',
  },
  yum: rpm(),
  dnf: rpm(),
  microdnf: rpm(),
  zypper: {
    changes: /^(in|install|rm|remove|up|update|dup|dist-upgrade|patch|addrepo|ar|removerepo|rr)$/,
    refreshes: /^(ref|refresh|clean)$/,
    queries: /^(se|search|if|info|lr|repos|ls|services|pa|packages|lu|list-updates|--version|-V|--help|-h)$/,
    writes: DPKG_LIKE,
    database: '/var/lib/rpm',
  },
  apk: {
    changes: /^(add|del|upgrade|fix|cache)$/,
    refreshes: /^(update)$/,
    queries: /^(info|search|list|policy|dot|stats|version|--version|-V|--help|-h)$/,
    writes: DPKG_LIKE,
    database: '/lib/apk',
  },
  pacman: {
    changes: /^-(S|R|U|D)[a-zA-Z]*$|^--(sync|remove|upgrade|database)$/,
    queries: /^-(Q|F|T)[a-zA-Z]*$|^--(query|files|deptest|version|help)$|^-V$|^-h$/,
    writes: DPKG_LIKE,
    database: '/var/lib/pacman',
  },
  brew: {
    changes:
      /^(install|reinstall|uninstall|remove|rm|upgrade|link|unlink|tap|untap|pin|unpin|cleanup|autoremove)$/,
    refreshes: /^(update)$/,
    queries:
      /^(list|ls|info|search|deps|uses|outdated|config|doctor|--version|--prefix|--cellar|--repository|leaves|desc|home|-v|--help)$/,
    // The prefix depends on the machine: each of brew's three standard ones.
    writes: ['/usr/local', '/opt/homebrew', '/home/linuxbrew/.linuxbrew'],
    database: '/usr/local',
  },
  snap: {
    changes: /^(install|remove|refresh|revert|enable|disable|connect|disconnect|alias|unalias)$/,
    queries: /^(list|find|info|version|services|connections|interface|--version|--help)$/,
    writes: ['/snap', '/var/snap'],
    database: '/var/lib/snapd',
  },
  flatpak: {
    changes: /^(install|uninstall|update|remove|remote-add|remote-delete|override)$/,
    queries: /^(list|info|search|remotes|remote-ls|history|--version|--help)$/,
    writes: ['/var/lib/flatpak'],
    database: '/var/lib/flatpak',
  },
};

function rpm(): Manager {
  return {
    changes:
      /^(install|in|reinstall|remove|rm|erase|upgrade|up|update|downgrade|distro-sync|autoremove|group|swap|localinstall|module)$/,
    refreshes: /^(makecache|clean)$/,
    queries:
      /^(list|ls|info|search|se|provides|repolist|check-update|history|deplist|repoquery|--version|--help|-h)$/,
    writes: DPKG_LIKE,
    database: '/var/lib/rpm',
  };
}

function handler(name: string, m: Manager): CommandHandler {
  return (cx: CommandContext) => {
    if (cx.args.some((f) => f.uncertain !== undefined)) {
      cx.uncertain(`${name}: an argument is not known`);
      return;
    }
    // dpkg and pacman name the operation as an option; the others as the first word that is not one.
    const action =
      name === 'dpkg' || name === 'pacman'
        ? cx.args.find((f) => m.changes.test(f.value) || m.queries.test(f.value))
        : (cx.args.find((f) => !f.value.startsWith('-')) ?? cx.args.find((f) => m.queries.test(f.value)));
    const word = action?.value ?? '';
    // A simulation (`apt-get -s`, `--dry-run`, `--simulate`) changes nothing.
    const simulated = cx.args.some((f) =>
      /^(-s|--simulate|--dry-run|--just-print|--no-act|--recon)$/.test(f.value),
    );
    if (m.changes.test(word) && !(simulated && name.startsWith('apt'))) {
      for (const w of [...m.writes, m.database]) cx.write(literal(w), { tag: word });
      // Package files given by path are read (`apt install ./x.deb`, `dpkg -i x.deb`, `pacman -U x.pkg`).
      for (const f of cx.args)
        if (/\.(deb|rpm|apk|pkg\.tar\.[a-z]+)$/.test(f.value)) cx.read(f, { tag: 'package' });
      return;
    }
    if (m.refreshes?.test(word)) {
      cx.write(literal(m.database), { tag: word });
      return;
    }
    if (m.queries.test(word) || (simulated && m.changes.test(word))) return;
    cx.unknownOperands(cx.args);
  };
}

export const systemPackages: Record<string, CommandHandler> = Object.fromEntries(
  Object.entries(MANAGERS).map(([name, m]) => [name, handler(name, m)]),
);
