import { PROTOCOL_VERSION } from '../protocol.js';
import { identity } from '../lib/identity.js';
import { getPilot, getScope, getTrackedTabId } from '../lib/state.js';

export const name = 'status';
export const needsPilot = false;

export async function run() {
  const [who, pilot, tracked, scope] = await Promise.all([identity(), getPilot(), getTrackedTabId(), getScope()]);
  return {
    pilot,
    extension_version: who.extension_version,
    protocol: PROTOCOL_VERSION,
    instance_id: who.instance_id,
    label: who.label,
    profile: who.profile,
    browser_name: who.browser_name,
    browser_version: who.browser_version,
    tracked_tab_id: tracked,
    // null: every site; else the host patterns the person allows.
    sites: scope.all ? null : scope.sites,
  };
}
