import type { Element } from 'domhandler';
import { childElements, collapseWhitespace } from '../dom';
import type { ParsedPage } from '../parsed-page';
import { srcsetUrls } from '../urls';

/** One image of the `images` output. */
export interface ImageOutput {
  /** Absolute http(s) URL. */
  src: string;
  /** `alt` text, whitespace collapsed; `""` when none. */
  alt: string;
  /** Absolute URLs of the `srcset` candidates (and `<picture><source srcset>`), in order, deduped. */
  srcset: string[];
}

/** One audio source of the `audios` output. */
export interface AudioOutput {
  /** Absolute http(s) URL. */
  src: string;
  /** The MIME type the page declares (`type`), or null. */
  type: string | null;
}

/** One video source of the `videos` output. */
export interface VideoOutput {
  /** Absolute http(s) URL. */
  src: string;
  /** The MIME type the page declares (`type`), or null. */
  type: string | null;
  /** Absolute URL of the video's `poster` image, or null. */
  poster: string | null;
}

/** Attributes lazy-loading scripts keep the real image URL in, in order of preference. */
const LAZY_SRC_ATTRIBUTES = ['data-src', 'data-lazy-src', 'data-original'] as const;
const SOURCE = new Set(['source']);

/**
 * `images` output: the page's `<img>` elements as absolute URLs, deduplicated by `src` (first alt
 * that is not empty wins, srcsets merged). The `src` is the `src` attribute, else a lazy-loading
 * attribute (`data-src`, `data-lazy-src`, `data-original`), else the first `srcset` candidate;
 * `data:` URIs (inline placeholders) are not images here. An image without any http(s) URL is
 * left out.
 */
export function extractImages(page: ParsedPage): ImageOutput[] {
  const byUrl = new Map<string, ImageOutput>();
  for (const img of page.elements('img')) {
    const srcset = imageSrcset(page, img);
    const src =
      page.resolve(img.attribs.src) ??
      LAZY_SRC_ATTRIBUTES.map((name) => page.resolve(img.attribs[name])).find((url) => url !== undefined) ??
      srcset[0];
    if (src === undefined) continue;
    const alt = collapseWhitespace(img.attribs.alt ?? '');
    const known = byUrl.get(src);
    if (known === undefined) {
      byUrl.set(src, { src, alt, srcset });
      continue;
    }
    if (known.alt === '') known.alt = alt;
    for (const url of srcset) if (!known.srcset.includes(url)) known.srcset.push(url);
  }
  return [...byUrl.values()];
}

function imageSrcset(page: ParsedPage, img: Element): string[] {
  const written: string[] = [];
  const picture = img.parent;
  if (picture?.type === 'tag' && picture.name === 'picture') {
    for (const source of childElements(picture, SOURCE)) written.push(...srcsetUrls(source.attribs.srcset ?? ''));
  }
  written.push(...srcsetUrls(img.attribs.srcset ?? img.attribs['data-srcset'] ?? ''));
  const urls: string[] = [];
  for (const raw of written) {
    const url = page.resolve(raw);
    if (url !== undefined && !urls.includes(url)) urls.push(url);
  }
  return urls;
}

/**
 * `audios` output: every source of the page's `<audio>` elements — the element's own `src` and
 * its `<source src>` children — as absolute URLs with their declared type, deduplicated by URL.
 */
export function extractAudios(page: ParsedPage): AudioOutput[] {
  const byUrl = new Map<string, AudioOutput>();
  for (const audio of page.elements('audio')) {
    for (const { src, type } of mediaSources(page, audio)) if (!byUrl.has(src)) byUrl.set(src, { src, type });
  }
  return [...byUrl.values()];
}

/**
 * `videos` output: every source of the page's `<video>` elements — `src` and `<source src>`
 * children — as absolute URLs with their declared type and the element's poster, deduplicated by
 * URL. A video with a poster and no source is listed by nothing: the poster alone is an image.
 * Embedded players (`<iframe>` of video sites) are not videos here.
 */
export function extractVideos(page: ParsedPage): VideoOutput[] {
  const byUrl = new Map<string, VideoOutput>();
  for (const video of page.elements('video')) {
    const poster = page.resolve(video.attribs.poster) ?? null;
    for (const { src, type } of mediaSources(page, video)) {
      if (!byUrl.has(src)) byUrl.set(src, { src, type, poster });
    }
  }
  return [...byUrl.values()];
}

function mediaSources(page: ParsedPage, media: Element): Array<{ src: string; type: string | null }> {
  const sources: Array<{ src: string; type: string | null }> = [];
  const own = page.resolve(media.attribs.src);
  if (own !== undefined) sources.push({ src: own, type: media.attribs.type?.trim() || null });
  for (const source of childElements(media, SOURCE)) {
    const src = page.resolve(source.attribs.src);
    if (src !== undefined) sources.push({ src, type: source.attribs.type?.trim() || null });
  }
  return sources;
}
