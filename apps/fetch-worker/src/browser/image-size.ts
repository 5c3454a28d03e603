/** Pixel size of an image. */
export interface ImageSize {
  width: number;
  height: number;
}

/**
 * Width and height of a PNG (IHDR) or baseline/progressive JPEG (first SOFn marker), read from
 * the bytes, so a screenshot reports what it really is whatever the device scale factor.
 * Undefined for anything else or a truncated file.
 */
export function imageSize(image: Buffer): ImageSize | undefined {
  if (image.length >= 24 && image.readUInt32BE(0) === 0x89504e47 && image.toString('latin1', 12, 16) === 'IHDR') {
    return { width: image.readUInt32BE(16), height: image.readUInt32BE(20) };
  }
  if (image.length >= 4 && image[0] === 0xff && image[1] === 0xd8) return jpegSize(image);
  return undefined;
}

function jpegSize(image: Buffer): ImageSize | undefined {
  let at = 2;
  while (at + 9 < image.length) {
    if (image[at] !== 0xff) return undefined;
    const marker = image[at + 1];
    // Fill bytes and markers without a length.
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    // SOF0…SOF15 except DHT (c4), JPG (c8) and DAC (cc).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: image.readUInt16BE(at + 5), width: image.readUInt16BE(at + 7) };
    }
    at += 2 + image.readUInt16BE(at + 2);
  }
  return undefined;
}
