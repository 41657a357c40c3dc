/** `sessionfold events <sub-command>`: bulk access to normalized events. */
import { defineCommand } from '../command.js';

export default defineCommand({
  name: 'events',
  description: 'Bulk access to the normalized usage events of every agent',
  usage: '<command>',
  options: {},
  subCommands: {
    export: () => import('./events-export.js'),
  },
});
