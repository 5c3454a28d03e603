import type { OutputName } from '@trawl/contracts';
import { parsePage, type ParsedPage } from './parsed-page';
import { extractEmails } from './outputs/emails';
import { extractFavicon } from './outputs/favicon';
import { extractHashtags } from './outputs/hashtags';
import { extractHeadings, type HeadingsOutput } from './outputs/headings';
import { extractLinks, type LinkOutput } from './outputs/links';
import { extractAudios, extractImages, extractVideos, type AudioOutput, type ImageOutput, type VideoOutput } from './outputs/media';
import { extractMenus, type MenuOutput } from './outputs/menus';
import { extractMetadata, type MetadataOutput } from './outputs/metadata';
import { extractPhoneNumbers } from './outputs/phone-numbers';
import { extractTables, type TableOutput } from './outputs/tables';

/** The answer's shape for each output name (fetch-details "outputs"); each is documented at its extractor. */
export interface OutputShapes {
  emails: string[];
  phone_numbers: string[];
  headings: HeadingsOutput;
  images: ImageOutput[];
  audios: AudioOutput[];
  videos: VideoOutput[];
  links: LinkOutput[];
  tables: TableOutput[];
  menus: MenuOutput[];
  hashtags: string[];
  metadata: MetadataOutput;
  favicon: string;
}

/** The answer to `outputs=…`: one key per asked name. */
export type ExtractedOutputs<N extends OutputName = OutputName> = { [K in N]: OutputShapes[K] };

/**
 * Answers the `outputs` parameter: for each asked name, its value (shapes in `OutputShapes`;
 * lists are empty, never missing, when the page has nothing of the kind). The page is parsed once
 * for all names, and its visible text rendered once for those that read text (emails, phone
 * numbers, hashtags). Keys follow the order of `names`; a repeated name is answered once.
 *
 * @param page the HTML, or a page already parsed with `parsePage`
 * @param pageUrl the page's final URL, to resolve relative links; used only when `page` is HTML
 * @param names outputs to answer (`*` expands to `OUTPUT_NAMES` in the gateway)
 * @throws ExtractionError `invalid_page_url` when `page` is HTML and `pageUrl` is not absolute http(s)
 */
export function extractOutputs<N extends OutputName>(
  page: string | ParsedPage,
  pageUrl: string | undefined,
  names: readonly N[],
): ExtractedOutputs<N> {
  const parsed = typeof page === 'string' ? parsePage(page, pageUrl ?? '') : page;
  const answer: Partial<Record<OutputName, unknown>> = {};
  for (const name of names) {
    if (!(name in answer)) answer[name] = extractOutput(parsed, name);
  }
  return answer as ExtractedOutputs<N>;
}

function extractOutput(page: ParsedPage, name: OutputName): OutputShapes[OutputName] {
  switch (name) {
    case 'emails':
      return extractEmails(page);
    case 'phone_numbers':
      return extractPhoneNumbers(page);
    case 'headings':
      return extractHeadings(page);
    case 'images':
      return extractImages(page);
    case 'audios':
      return extractAudios(page);
    case 'videos':
      return extractVideos(page);
    case 'links':
      return extractLinks(page);
    case 'tables':
      return extractTables(page);
    case 'menus':
      return extractMenus(page);
    case 'hashtags':
      return extractHashtags(page);
    case 'metadata':
      return extractMetadata(page);
    case 'favicon':
      return extractFavicon(page);
  }
}
