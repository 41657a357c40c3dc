/**
 * `sessionfold store <save|list|show|archive|delete|rename|fork|prune>`: sessionfold's own session store
 * (src/store/). Sessions saved here are read by every other command as the `store` agent.
 */
import { defineCommand } from '../command.js';

export default defineCommand({
  name: 'store',
  description: "Keep sessions of any agent in sessionfold's own store: save, list, show, archive, delete, rename, fork, prune.",
  usage: '<save|list|show|archive|delete|rename|fork|prune> [options]',
  options: {},
  subCommands: {
    save: () => import('./store-save.js'),
    list: () => import('./store-list.js'),
    show: () => import('./store-show.js'),
    archive: () => import('./store-edit.js').then((m) => ({ default: m.archive })),
    delete: () => import('./store-edit.js').then((m) => ({ default: m.remove })),
    rename: () => import('./store-edit.js').then((m) => ({ default: m.rename })),
    fork: () => import('./store-edit.js').then((m) => ({ default: m.fork })),
    prune: () => import('./store-edit.js').then((m) => ({ default: m.prune })),
  },
});
