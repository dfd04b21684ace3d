// Turning a command's outcome into wire messages. Kept free of `chrome` so node can test it.
import { EXT_CHUNK_CHARS } from '../protocol.js';

/** JSON text a handler already has (serialized in the page): sent as is, never parsed here. */
export class JsonText {
  constructor(text) {
    this.text = text;
  }
}

/**
 * Cut `text` into pieces of at most `size` UTF-16 units, never between a high and a low surrogate
 * (each piece is sent as its own JSON string, and a lone surrogate would not survive that).
 */
export function splitText(text, size = EXT_CHUNK_CHARS) {
  const pieces = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    if (end < text.length) {
      const c = text.charCodeAt(end - 1);
      if (c >= 0xd800 && c <= 0xdbff && end - 1 > start) end -= 1;
    }
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

/** The messages that carry one command's result: one `result`, or `result_chunk`s for big ones. */
export function resultMessages(id, out, size = EXT_CHUNK_CHARS) {
  if (!(out instanceof JsonText)) {
    const value = out === undefined ? null : out;
    const text = JSON.stringify(value);
    if (text.length <= size) return [{ type: 'result', id, value }];
    return chunkMessages(id, text, size);
  }
  if (out.text.length <= size) return [{ type: 'result', id, value_json: out.text }];
  return chunkMessages(id, out.text, size);
}

function chunkMessages(id, text, size) {
  const pieces = splitText(text, size);
  return pieces.map((data, seq) => ({
    type: 'result_chunk',
    id,
    seq,
    data,
    final: seq === pieces.length - 1,
  }));
}

export function errorMessage(id, err) {
  const msg = {
    type: 'error',
    id,
    code: err.code,
    message: err.message,
    retryable: Boolean(err.retryable),
  };
  if (err.data !== null && err.data !== undefined) msg.data = err.data;
  return msg;
}
