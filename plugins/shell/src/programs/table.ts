import type { CommandHandler } from '../effects/extractTypes.js';
import { archiveReaders } from './archives/archiveReaders.js';
import { compressors } from './archives/compressors.js';
import { tar } from './archives/tar.js';
import { unzip, zip } from './archives/zip.js';
import { codeRunners } from './build/codeRunners.js';
import { make } from './build/make.js';
import { builtins } from './builtins/builtins.js';
import { copyMove } from './files/copyMove.js';
import { fileInfo } from './files/fileInfo.js';
import { fileWriters } from './files/fileWriters.js';
import { findXargs } from './files/findXargs.js';
import { listing } from './files/listing.js';
import { mktemp } from './files/mktemp.js';
import { bunDeno } from './interpreters/bunDeno.js';
import { nodeFamily } from './interpreters/node.js';
import { perlFamily } from './interpreters/perl.js';
import { pythonFamily } from './interpreters/python.js';
import { scriptRunners } from './interpreters/scriptRunners.js';
import { shells } from './interpreters/shells.js';
import { sqliteFamily } from './interpreters/sqlite3.js';
import { curlFamily } from './network/curl.js';
import { sshFamily } from './network/ssh.js';
import { wgetFamily } from './network/wget.js';
import { packageManagers } from './packages/packageManagers.js';
import { systemPackages } from './packages/systemPackages.js';
import { containerExec } from './system/containerExec.js';
import { wrappers } from './system/wrappers.js';
import { awkFamily } from './text/awk.js';
import { checksums } from './text/checksums.js';
import { jqFamily } from './text/jq.js';
import { sedFamily } from './text/sed.js';
import { textReaders } from './text/textReaders.js';
import { textWriters } from './text/textWriters.js';
import { git } from './vcs/git/git.js';

/**
 * Every command we know the argv semantics of, by family (one folder each). Anything else is an unknown
 * command. No name is in two families, so the order below does not decide which model a name gets.
 */
export const commandTable: ReadonlyMap<string, CommandHandler> = new Map(
  Object.entries({
    // Shell builtins run as programs (`env cd`, `test`) and programs that touch no path (`echo`, `uname`).
    ...builtins,
    // Text: readers, filters, checksums and the text tools that write their output to files.
    ...textReaders,
    ...textWriters,
    ...checksums,
    ...sedFamily,
    ...awkFamily,
    ...jqFamily,
    // Files: listing, metadata, creating, copying, deleting, finding.
    ...listing,
    ...fileInfo,
    ...fileWriters,
    ...copyMove,
    ...findXargs,
    mktemp,
    // Archives and compressors. bsdtar (libarchive) is not here: its options differ from GNU tar's
    // (`-s PATTERN` takes a value), so it is an unknown command until it has its own table.
    tar,
    gtar: tar,
    zip,
    unzip,
    ...compressors,
    ...archiveReaders,
    // Network: programs that talk to other machines, each with a complete option table.
    ...curlFamily,
    ...wgetFamily,
    ...sshFamily,
    // System: commands run inside containers and pods, and wrappers that run another command.
    ...containerExec,
    ...wrappers,
    // Interpreters: shells, and languages whose code is read where we can or else uncertain.
    ...shells,
    ...pythonFamily,
    ...nodeFamily,
    ...perlFamily,
    ...bunDeno,
    ...scriptRunners,
    ...sqliteFamily,
    // Version control, build tools and package managers.
    git,
    make,
    gmake: make,
    // Build tools, test runners and task runners: they run the project's own code (invariant 6).
    ...codeRunners,
    ...packageManagers,
    ...systemPackages,
  }),
);
