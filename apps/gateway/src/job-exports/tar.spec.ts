import { TAR_BLOCK, tarEnd, tarFileHeader, tarPadding } from './tar';

/** Reads back the fields a tar reader relies on. */
function decode(header: Buffer) {
  const text = (from: number, length: number) =>
    header
      .subarray(from, from + length)
      .toString('ascii')
      .replace(/\0.*$/s, '');
  const octal = (from: number, length: number) => parseInt(text(from, length).trim(), 8);
  const stored = octal(148, 8);
  const copy = Buffer.from(header);
  copy.fill(0x20, 148, 156);
  const computed = copy.reduce((sum, byte) => sum + byte, 0);
  return {
    name: text(0, 100),
    mode: octal(100, 8),
    size: octal(124, 12),
    mtime: octal(136, 12),
    type: text(156, 1),
    magic: header.subarray(257, 263).toString('ascii'),
    version: text(263, 2),
    checksumValid: stored === computed,
  };
}

describe('tar', () => {
  describe(tarFileHeader.name, () => {
    it('writes a ustar header of one block whose checksum and fields read back', () => {
      const header = tarFileHeader('bodies/12.html', 1_234_567, new Date('2025-01-02T03:04:05Z'));
      expect(header.length).toBe(TAR_BLOCK);
      expect(decode(header)).toEqual({
        name: 'bodies/12.html',
        mode: 0o644,
        size: 1_234_567,
        mtime: Date.parse('2025-01-02T03:04:05Z') / 1000,
        type: '0',
        magic: 'ustar\0',
        version: '00',
        checksumValid: true,
      });
    });

    it('states sizes up to the octal field limit and refuses beyond', () => {
      expect(decode(tarFileHeader('big', 0o77777777777, new Date(0))).size).toBe(0o77777777777);
      expect(() => tarFileHeader('big', 0o77777777777 + 1, new Date(0))).toThrow(/size/);
    });

    it('refuses names that do not fit the 100-byte field', () => {
      expect(() => tarFileHeader('x'.repeat(101), 1, new Date(0))).toThrow(/name/);
      expect(() => tarFileHeader('', 1, new Date(0))).toThrow(/name/);
    });
  });

  describe(tarPadding.name, () => {
    it.each([
      [0, 0],
      [1, 511],
      [511, 1],
      [512, 0],
      [513, 511],
    ])('pads %i bytes with %i zeros', (size, padding) => {
      const bytes = tarPadding(size);
      expect(bytes.length).toBe(padding);
      expect(bytes.every((byte) => byte === 0)).toBe(true);
    });
  });

  it('ends with two zero blocks', () => {
    expect(tarEnd()).toEqual(Buffer.alloc(1024, 0));
  });
});
