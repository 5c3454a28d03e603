import { parsePage } from '../parsed-page';
import { extractAudios, extractImages, extractVideos } from './media';

const page = (html: string) => parsePage(html, 'https://shop.test/gallery/index.html');

describe(extractImages.name, () => {
  it('answers absolute src, alt and srcset, deduplicated by src', () => {
    const html = `<img src="a.jpg" alt=" Front   view " srcset="a-480.jpg 480w, /img/a-800.jpg 800w">
      <img src="https://shop.test/gallery/a.jpg" alt="dup" srcset="a-1200.jpg 1200w">
      <img src="b.png">`;
    expect(extractImages(page(html))).toEqual([
      {
        src: 'https://shop.test/gallery/a.jpg',
        alt: 'Front view',
        srcset: ['https://shop.test/gallery/a-480.jpg', 'https://shop.test/img/a-800.jpg', 'https://shop.test/gallery/a-1200.jpg'],
      },
      { src: 'https://shop.test/gallery/b.png', alt: '', srcset: [] },
    ]);
  });

  it('takes lazy-loading attributes, <picture> sources and srcset when src is missing or inline', () => {
    const html = `<img src="data:image/gif;base64,R0lGODlh" data-src="/lazy.jpg" alt="Lazy">
      <picture><source srcset="c.webp 1x, c@2x.webp 2x" type="image/webp"><img alt="Pic"></picture>
      <img src="data:image/png;base64,iVBOR" alt="inline only"><img alt="nothing">`;
    expect(extractImages(page(html))).toEqual([
      { src: 'https://shop.test/lazy.jpg', alt: 'Lazy', srcset: [] },
      {
        src: 'https://shop.test/gallery/c.webp',
        alt: 'Pic',
        srcset: ['https://shop.test/gallery/c.webp', 'https://shop.test/gallery/c@2x.webp'],
      },
    ]);
  });

  it('reads srcset URLs that contain commas', () => {
    const html = '<img srcset="/img/a,b.jpg 1x,/img/c.jpg 2x">';
    expect(extractImages(page(html))[0].srcset).toEqual(['https://shop.test/img/a,b.jpg', 'https://shop.test/img/c.jpg']);
  });
});

describe(extractAudios.name, () => {
  it('answers every source of every <audio>, deduplicated', () => {
    const html = `<audio src="intro.mp3"></audio><audio controls><source src="/a.ogg" type="audio/ogg">
      <source src="/a.mp3" type=" audio/mpeg "></audio><audio src="intro.mp3"></audio><audio></audio>`;
    expect(extractAudios(page(html))).toEqual([
      { src: 'https://shop.test/gallery/intro.mp3', type: null },
      { src: 'https://shop.test/a.ogg', type: 'audio/ogg' },
      { src: 'https://shop.test/a.mp3', type: 'audio/mpeg' },
    ]);
  });
});

describe(extractVideos.name, () => {
  it('answers sources with type and the poster of their <video>', () => {
    const html = `<video src="/clip.mp4" poster="poster.jpg"></video>
      <video><source src="b.webm" type="video/webm"><source src="javascript:alert(1)"></video>
      <iframe src="https://video.test/embed/1"></iframe>`;
    expect(extractVideos(page(html))).toEqual([
      { src: 'https://shop.test/clip.mp4', type: null, poster: 'https://shop.test/gallery/poster.jpg' },
      { src: 'https://shop.test/gallery/b.webm', type: 'video/webm', poster: null },
    ]);
  });
});
