/**
 * A frame bomb: a GIF whose logical screen is `size` x `size` pixels and which holds `frames`
 * frames of one pixel each. About 23 bytes a frame on disk (3000 frames: 69 KB), `size` squared
 * pixels a frame once a decoder paints each onto the screen: 4000 x 4000 x 3000 = 48 billion.
 */
export function frameBombGif(frames: number, size = 4000): Buffer {
  const screen = Buffer.alloc(7);
  screen.writeUInt16LE(size, 0);
  screen.writeUInt16LE(size, 2);
  screen[4] = 0x80; // a global colour table of 2 entries
  const parts: Buffer[] = [
    Buffer.from('GIF89a'),
    screen,
    Buffer.from([0, 0, 0, 255, 255, 255]),
    // Loop forever (NETSCAPE2.0), as animations do.
    Buffer.from([0x21, 0xff, 0x0b, ...Buffer.from('NETSCAPE2.0'), 0x03, 0x01, 0x00, 0x00, 0x00]),
  ];
  for (let frame = 0; frame < frames; frame++) {
    // Graphic control: 20 ms a frame.
    parts.push(Buffer.from([0x21, 0xf9, 0x04, 0x04, 0x02, 0x00, 0x00, 0x00]));
    const descriptor = Buffer.alloc(10);
    descriptor[0] = 0x2c;
    descriptor.writeUInt16LE(frame % size, 1);
    descriptor.writeUInt16LE(1, 5);
    descriptor.writeUInt16LE(1, 7);
    parts.push(descriptor);
    // LZW, minimum code size 2: one pixel of colour 0.
    parts.push(Buffer.from([0x02, 0x02, 0x4c, 0x01, 0x00]));
  }
  parts.push(Buffer.from([0x3b]));
  return Buffer.concat(parts);
}
