// The command registry: one handler file per command, one line here. Each module exports
// `name` (the wire tag), `needsPilot`, and `run(msg, {signal, running})`.
import * as addRedaction from './add_redaction.js';
import * as addSecretPattern from './add_secret_pattern.js';
import * as askSecret from './ask_secret.js';
import * as cancel from './cancel.js';
import * as check from './check.js';
import * as click from './click.js';
import * as closeTab from './close_tab.js';
import * as count from './count.js';
import * as executeJs from './execute_js.js';
import * as extract from './extract.js';
import * as extractScript from './extract_script.js';
import * as extractTab from './extract_tab.js';
import * as fetchDetails from './fetch_details.js';
import * as fetchExtract from './fetch_extract.js';
import * as fill from './fill.js';
import * as fillForm from './fill_form.js';
import * as highlight from './highlight.js';
import * as history from './history.js';
import * as mainContent from './main_content.js';
import * as hover from './hover.js';
import * as navigate from './navigate.js';
import * as newTab from './new_tab.js';
import * as paginate from './paginate.js';
import * as ping from './ping.js';
import * as press from './press.js';
import * as releaseTabs from './release_tabs.js';
import * as scroll from './scroll.js';
import * as screenshot from './screenshot.js';
import * as scrollLoad from './scroll_load.js';
import * as select from './select.js';
import * as snapshot from './snapshot.js';
import * as state from './state.js';
import * as status from './status.js';
import * as suggest from './suggest.js';
import * as switchTab from './switch_tab.js';
import * as tabs from './tabs.js';
import * as telemetry from './telemetry.js';
import * as trackTab from './track_tab.js';
import * as typeText from './type.js';
import * as waitFor from './wait_for.js';

export const HANDLERS = new Map([
  cancel, count, executeJs, extract, extractScript, navigate, paginate, ping, scrollLoad, status, tabs,
  snapshot, click, fill, typeText, press, select, check, hover, scroll, waitFor, highlight,
  closeTab, history, newTab, switchTab, trackTab, screenshot, state, telemetry, addRedaction,
  mainContent, suggest, fillForm, addSecretPattern, extractTab, fetchExtract, fetchDetails, releaseTabs,
  askSecret,
].map((h) => [h.name, h]));
