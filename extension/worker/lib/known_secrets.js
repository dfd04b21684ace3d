// The secret values a document has held, as the page agent's redaction part remembers them (it watches
// from document_start: worker/lib/guard.js). The page-world script runner cannot see that memory, so
// the worker hands it these values to scrub with; they stay in the page and this worker.
import { inPage } from './page.js';

/** The values tab `msg.tab_id`'s document remembers as secret ([] when the agent cannot be reached). */
export async function knownSecrets(msg, signal) {
  try {
    const out = await inPage({ tab_id: msg.tab_id, timeout_ms: 2_000 }, 'secret_values', {}, { signal });
    return Array.isArray(out && out.values) ? out.values.filter((v) => typeof v === 'string') : [];
  } catch (err) {
    if (signal && signal.aborted) throw err;
    return [];
  }
}
