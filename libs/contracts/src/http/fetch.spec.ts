import { FETCH_PARAMETERS } from '../fetch-parameters';
import { OUTPUT_FORMAT_MEDIA, RESPONSE_TYPE_TRAITS, RESPONSE_TYPES } from '../output-formats';
import type { ApiResponse } from './api-route';
import { fetchRoutes } from './fetch';

describe('fetchRoutes', () => {
  it('answers the media type of every output format, each once, then any other content of the target', () => {
    const expected = new Set(Object.values(OUTPUT_FORMAT_MEDIA).map((format) => format.contentType.split(';')[0]));
    for (const route of fetchRoutes.filter((candidate) => ['get', 'post', 'put'].includes(candidate.method))) {
      const answer = route.responses[200] as Exclude<ApiResponse, { parse: unknown }>;
      const media = [answer.contentType, ...(answer.alternatives ?? []).map((alternative) => alternative.contentType)];
      expect(new Set(media).size).toBe(media.length);
      expect(new Set(media)).toEqual(new Set([...expected, '*/*']));
      expect(media.at(-1)).toBe('*/*');
    }
  });

  it('describes every response type by its title, naming those that need js_render', () => {
    const description = FETCH_PARAMETERS.response_type.description;
    for (const type of RESPONSE_TYPES) expect(description).toContain(RESPONSE_TYPE_TRAITS[type].title);
    const needing = /\((.+) needs? `js_render`\)/.exec(description)?.[1] ?? '';
    expect(RESPONSE_TYPES.filter((type) => needing.includes(`\`${type}\``))).toEqual(
      RESPONSE_TYPES.filter((type) => RESPONSE_TYPE_TRAITS[type].printed),
    );
  });
});
