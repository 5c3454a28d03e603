/**
 * The parts of a POSIX ustar archive, written as the bytes go out (no buffering of whole files):
 * per entry a 512-byte header, the content, zero padding to the next 512-byte boundary; at the end
 * two zero blocks. Only regular files, as an export holds nothing else.
 */

export const TAR_BLOCK = 512;

/** Largest size the 11 octal digits of a ustar header can state (8 GiB − 1). */
const MAX_OCTAL_SIZE = 0o77777777777;

/** Header of a regular file of `size` bytes. `name` is ASCII, at most 100 bytes (no prefix field needed here). */
export function tarFileHeader(name: string, size: number, modifiedAt: Date): Buffer {
  const nameBytes = Buffer.from(name, 'utf8');
  if (nameBytes.length === 0 || nameBytes.length > 100) throw new Error(`tar entry name must be 1 to 100 bytes: ${name}`);
  if (!Number.isSafeInteger(size) || size < 0 || size > MAX_OCTAL_SIZE) throw new Error(`tar entry size out of range: ${size}`);
  const header = Buffer.alloc(TAR_BLOCK, 0);
  nameBytes.copy(header, 0);
  writeOctal(header, 100, 8, 0o644); // mode
  writeOctal(header, 108, 8, 0); // uid
  writeOctal(header, 116, 8, 0); // gid
  writeOctal(header, 124, 12, size);
  writeOctal(header, 136, 12, Math.max(0, Math.floor(modifiedAt.getTime() / 1000)));
  header.fill(0x20, 148, 156); // the checksum is computed with its own field as spaces
  header.write('0', 156, 'ascii'); // typeflag: regular file
  header.write('ustar\u000000', 257, 'ascii'); // magic "ustar\0" and version "00"
  header.write('trawl', 265, 'ascii'); // uname
  header.write('trawl', 297, 'ascii'); // gname
  let checksum = 0;
  for (const byte of header) checksum += byte;
  // Six octal digits, NUL, space: the form GNU and BSD tar write.
  header.write(`${checksum.toString(8).padStart(6, '0')}\u0000 `, 148, 'ascii');
  return header;
}

/** Zero bytes that follow `size` bytes of content up to the next block boundary (possibly none). */
export function tarPadding(size: number): Buffer {
  const rest = size % TAR_BLOCK;
  return Buffer.alloc(rest === 0 ? 0 : TAR_BLOCK - rest, 0);
}

/** The end-of-archive marker: two zero blocks. */
export function tarEnd(): Buffer {
  return Buffer.alloc(TAR_BLOCK * 2, 0);
}

/** `width - 1` octal digits and a NUL terminator at `offset`. */
function writeOctal(header: Buffer, offset: number, width: number, value: number): void {
  header.write(`${value.toString(8).padStart(width - 1, '0')}\u0000`, offset, 'ascii');
}
