// The command registry: one handler file per command, one line here. Each module exports
// `name` (the wire tag), `needsPilot`, and `run(msg, {signal, running})`.
import * as cancel from './cancel.js';
import * as count from './count.js';
import * as executeJs from './execute_js.js';
import * as extract from './extract.js';
import * as navigate from './navigate.js';
import * as paginate from './paginate.js';
import * as ping from './ping.js';
import * as scrollLoad from './scroll_load.js';
import * as status from './status.js';
import * as tabs from './tabs.js';

export const HANDLERS = new Map([cancel, count, executeJs, extract, navigate, paginate, ping, scrollLoad, status, tabs].map((h) => [h.name, h]));
