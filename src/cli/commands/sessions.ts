/**
 * `sessionfold sessions <list|show|search|export|diff|resume|fork>`: the SessionManager on the command line.
 * Sub-commands load lazily; each is a thin layer over `createSessionManager()` (it never parses files).
 */
import { defineCommand } from '../command.js';

export default defineCommand({
  name: 'sessions',
  description: 'List, show, search, export, diff and resume agent sessions (read-only), and fork one into the session store.',
  usage: '<list|show|search|export|diff|resume|fork> [options]',
  options: {},
  subCommands: {
    list: () => import('./sessions-list.js'),
    show: () => import('./sessions-show.js'),
    search: () => import('./sessions-search.js'),
    export: () => import('./sessions-export.js'),
    diff: () => import('./sessions-diff.js'),
    resume: () => import('./sessions-resume.js'),
    fork: () => import('./sessions-fork.js'),
  },
});
