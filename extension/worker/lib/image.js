// Screenshots sized for a model: cropped to an element and scaled down in the service worker
// (createImageBitmap + OffscreenCanvas), so the agent never receives a picture that costs more than
// ~1,600 image tokens (tokens ≈ width × height / 750).

// Pixel area of the biggest picture sent: 1,200,000 px ≈ 1,600 tokens.
export const MAX_AREA = 1_200_000;

/** The scale (≤ 1) that fits a w × h picture into `maxWidth` and MAX_AREA. */
export function fitScale(w, h, maxWidth) {
  return Math.min(1, maxWidth / w, Math.sqrt(MAX_AREA / (w * h)));
}

function base64ToBytes(b64) {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

function bytesToBase64(bytes) {
  let bin = '';
  // Chunks keep String.fromCharCode's argument list far below the engine's limit.
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** The base64 payload of a data: URL and its MIME type. */
export function splitDataUrl(url) {
  const comma = url.indexOf(',');
  const mime = url.slice(5, url.indexOf(';'));
  return { mime, data: url.slice(comma + 1) };
}

/**
 * Decode `data` (base64 of `mime`), cut out `crop` ({x, y, width, height} in CSS pixels of a viewport
 * `viewportWidth` wide; null for all of it), scale it to fit `maxWidth` and MAX_AREA, and encode it as
 * `format` (jpeg|png) at `quality`.
 */
export async function reshape({ data, mime }, crop, { maxWidth, format, quality, viewportWidth }) {
  const bitmap = await createImageBitmap(new Blob([base64ToBytes(data)], { type: mime }));
  try {
    let src = { x: 0, y: 0, width: bitmap.width, height: bitmap.height };
    if (crop) {
      // Device pixels per CSS pixel, zoom included.
      const ratio = bitmap.width / viewportWidth;
      const x = Math.max(0, Math.floor(crop.x * ratio));
      const y = Math.max(0, Math.floor(crop.y * ratio));
      src = {
        x,
        y,
        width: Math.max(1, Math.min(bitmap.width - x, Math.ceil(crop.width * ratio))),
        height: Math.max(1, Math.min(bitmap.height - y, Math.ceil(crop.height * ratio))),
      };
    }
    const scale = fitScale(src.width, src.height, maxWidth);
    const width = Math.max(1, Math.round(src.width * scale));
    const height = Math.max(1, Math.round(src.height * scale));
    const canvas = new OffscreenCanvas(width, height);
    const ctx = canvas.getContext('2d');
    ctx.imageSmoothingQuality = 'high';
    ctx.drawImage(bitmap, src.x, src.y, src.width, src.height, 0, 0, width, height);
    const type = `image/${format}`;
    const blob = await canvas.convertToBlob(format === 'jpeg' ? { type, quality: quality / 100 } : { type });
    return { data: bytesToBase64(new Uint8Array(await blob.arrayBuffer())), mime: type, width, height };
  } finally {
    bitmap.close();
  }
}

/** Width and height of a PNG or JPEG from its bytes (base64), without decoding the picture. */
export function imageSize({ data, mime }) {
  const head = base64ToBytes(data.slice(0, 64 * 1024 - ((64 * 1024) % 4)));
  if (mime === 'image/png') {
    const view = new DataView(head.buffer);
    return { width: view.getUint32(16), height: view.getUint32(20) };
  }
  // JPEG: walk the segments to the first start-of-frame marker.
  let i = 2;
  while (i + 9 < head.length) {
    if (head[i] !== 0xff) break;
    const marker = head[i + 1];
    const length = (head[i + 2] << 8) | head[i + 3];
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: (head[i + 5] << 8) | head[i + 6], width: (head[i + 7] << 8) | head[i + 8] };
    }
    i += 2 + length;
  }
  return null;
}

/**
 * Whether every point of `points` ([x, y] in CSS pixels of a viewport `viewportWidth` wide) is black in
 * the picture: the masks a capture must show. A point outside the picture is not checked.
 */
export async function blackAt({ data, mime }, points, viewportWidth) {
  if (!points.length || !(viewportWidth > 0)) return true;
  const bitmap = await createImageBitmap(new Blob([base64ToBytes(data)], { type: mime }));
  try {
    const scale = bitmap.width / viewportWidth;
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = canvas.getContext('2d');
    ctx.drawImage(bitmap, 0, 0);
    for (const [x, y] of points) {
      const px = Math.floor(x * scale);
      const py = Math.floor(y * scale);
      if (px < 0 || py < 0 || px >= bitmap.width || py >= bitmap.height) continue;
      const [r, g, b] = ctx.getImageData(px, py, 1, 1).data;
      if (r > 40 || g > 40 || b > 40) return false; // a lossy picture blurs black a little, never to this
    }
    return true;
  } finally {
    bitmap.close();
  }
}
