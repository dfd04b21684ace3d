// The command registry: one handler file per command, one line here. Each module exports
// `name` (the wire tag), `needsPilot`, and `run(msg, {signal, running})`.
import * as cancel from './cancel.js';
import * as executeJs from './execute_js.js';
import * as navigate from './navigate.js';
import * as ping from './ping.js';
import * as status from './status.js';
import * as tabs from './tabs.js';

export const HANDLERS = new Map([cancel, executeJs, navigate, ping, status, tabs].map((h) => [h.name, h]));
