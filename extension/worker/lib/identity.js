// Who this browser is, as the hello message and the status command tell it: a random instance id
// created once, the browser's name and version, a human label, and a dedicated profile's launch config.
import { normalizePattern } from './sites.js';
import { KEY, setPilot, setScope } from './state.js';

const LAUNCH_CONFIG = 'launch-config.json';
const INSTANCE_ID_RE = /^[0-9a-f]{16}$/;

function randomHex16() {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

let configured = null; // this worker's one reading of launch-config.json

/** Read and apply the launch config once per worker life; everything that reports identity awaits it. */
export function configure() {
  configured ??= applyLaunchConfig();
  return configured;
}

/**
 * Apply launch-config.json when the dedicated-profile launcher put one in this copy of the extension.
 * Only the person who ran the launcher can create that file, so it may set the pilot and its sites,
 * once per nonce: each `tabpilot browser launch` writes a new one (on with --pilot, else off; the
 * sites of --sites, else all), a restart by the bridge keeps the old one and changes nothing.
 */
async function applyLaunchConfig() {
  let config;
  try {
    const response = await fetch(chrome.runtime.getURL(LAUNCH_CONFIG));
    if (!response.ok) return null;
    config = await response.json();
  } catch {
    return null; // the normal case: no such file in the extension folder
  }
  if (!config || typeof config !== 'object') return null;
  const updates = {};
  if (typeof config.instance_id === 'string' && INSTANCE_ID_RE.test(config.instance_id)) {
    updates[KEY.INSTANCE_ID] = config.instance_id;
  }
  if (typeof config.profile === 'string') updates[KEY.PROFILE] = config.profile.slice(0, 100);
  if (typeof config.label === 'string') updates[KEY.LABEL] = config.label.slice(0, 100);
  if (Object.keys(updates).length) await chrome.storage.local.set(updates);
  if (typeof config.nonce === 'string' && config.nonce) {
    const got = await chrome.storage.local.get(KEY.LAUNCH_NONCE);
    if (got[KEY.LAUNCH_NONCE] !== config.nonce) {
      await chrome.storage.local.set({ [KEY.LAUNCH_NONCE]: config.nonce });
      const sites = Array.isArray(config.sites) ? config.sites.map(normalizePattern).filter(Boolean) : null;
      // The scope first: the pilot is never on with more sites than the person gave.
      await setScope(sites ? { all: false, sites } : { all: true, sites: [] });
      await setPilot(config.pilot === true);
    }
  }
  return config;
}

let creating = null;

/** The instance id, created on first use and kept in chrome.storage.local. */
export function instanceId() {
  creating ??= readOrCreateId().finally(() => {
    creating = null;
  });
  return creating;
}

async function readOrCreateId() {
  await configure();
  const got = await chrome.storage.local.get(KEY.INSTANCE_ID);
  if (typeof got[KEY.INSTANCE_ID] === 'string' && got[KEY.INSTANCE_ID]) return got[KEY.INSTANCE_ID];
  const id = randomHex16();
  await chrome.storage.local.set({ [KEY.INSTANCE_ID]: id });
  return id;
}

let browserInfo = null; // derived from the browser itself, so it may live in memory

const BRAND_NAMES = { 'Google Chrome': 'Chrome', 'Microsoft Edge': 'Edge' };

/** Browser name ("Chrome", "Chromium", "Edge", "Brave", ...) and full version. */
export async function browser() {
  if (browserInfo) return browserInfo;
  let name = 'Chromium';
  let version = (navigator.userAgent.match(/Chrome\/([\d.]+)/) || [])[1] || '';
  const uad = navigator.userAgentData;
  if (uad) {
    let list = uad.brands || [];
    try {
      const high = await uad.getHighEntropyValues(['fullVersionList']);
      if (high.fullVersionList && high.fullVersionList.length) list = high.fullVersionList;
    } catch {
      // keep the low-entropy brands
    }
    const real = list.filter((b) => !/not.?a.?brand/i.test(b.brand));
    const pick = real.find((b) => b.brand !== 'Chromium') || real.find((b) => b.brand === 'Chromium');
    if (pick) {
      name = BRAND_NAMES[pick.brand] || pick.brand;
      if (/^\d+\.\d+/.test(pick.version)) version = pick.version;
    }
  }
  browserInfo = { name, version };
  return browserInfo;
}

/** Everything the hello message and the status command report about this browser. */
export async function identity() {
  await configure();
  const [id, b, got] = await Promise.all([
    instanceId(),
    browser(),
    chrome.storage.local.get([KEY.LABEL, KEY.PROFILE]),
  ]);
  const profile = typeof got[KEY.PROFILE] === 'string' ? got[KEY.PROFILE] : '';
  const label = got[KEY.LABEL] || (profile ? `${b.name} (${profile})` : b.name);
  return {
    instance_id: id,
    label,
    profile,
    browser_name: b.name,
    browser_version: b.version,
    extension_version: chrome.runtime.getManifest().version,
  };
}
