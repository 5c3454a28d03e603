import { imageSize } from './image-size';

function png(width: number, height: number): Buffer {
  const header = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
  const ihdr = Buffer.alloc(17);
  ihdr.write('IHDR', 0, 'latin1');
  ihdr.writeUInt32BE(width, 4);
  ihdr.writeUInt32BE(height, 8);
  return Buffer.concat([header, ihdr]);
}

function jpeg(width: number, height: number): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x04, 0x4a, 0x46]);
  const sof = Buffer.from([0xff, 0xc2, 0x00, 0x11, 0x08, 0, 0, 0, 0, 0x03, 0, 0, 0]);
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof]);
}

describe(imageSize.name, () => {
  it('reads the size of a PNG', () => {
    expect(imageSize(png(1280, 7000))).toEqual({ width: 1280, height: 7000 });
  });

  it('reads the size of a JPEG from its SOF marker after other segments', () => {
    expect(imageSize(jpeg(390, 844))).toEqual({ width: 390, height: 844 });
  });

  it('answers undefined for other or truncated bytes', () => {
    expect(imageSize(Buffer.from('GIF89a'))).toBeUndefined();
    expect(imageSize(png(1, 1).subarray(0, 20))).toBeUndefined();
    expect(imageSize(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBeUndefined();
  });
});
