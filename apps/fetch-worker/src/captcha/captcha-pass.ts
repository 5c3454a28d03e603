import type { CaptchaSolverV1 } from '@trawl/contracts';
import { challengeSubmission, findCaptchaChallenge } from './captcha-challenge';
import { CaptchaError, CaptchaErrorCode } from './captcha.errors';
import type { CaptchaSolverClient } from './captcha-solver.client';

/** The token submission to send to the target, as the challenge's form would. */
export interface ChallengeSubmission {
  url: string;
  method: 'GET' | 'POST';
  body?: Buffer;
  /** `application/x-www-form-urlencoded` for a POST; the page URL as referer. */
  headers: Record<string, string>;
}

/** What a page looks like to the CAPTCHA step: its final URL and its text when it is HTML. */
export interface ChallengedPage {
  finalUrl: string;
  /** The page's HTML, undefined for other content (which has no challenge). */
  html: string | undefined;
}

/**
 * Gets past a CAPTCHA on a page: finds the challenge, has the tenant's solver solve it, submits the
 * token with `submit` (the same engine that fetched the page) and returns what the target answered
 * then. A page without a challenge, or a tenant without a solver, is left as it is (`undefined`).
 */
export class CaptchaPass {
  constructor(private readonly solver: CaptchaSolverClient) {}

  /**
   * @throws CaptchaError `InvalidKey` / `Unsolved` from the solver, or `Unsolved` when the target
   *   answered the token with the challenge again.
   */
  async pass<P>(
    page: ChallengedPage,
    solver: CaptchaSolverV1 | undefined,
    submit: (submission: ChallengeSubmission) => Promise<P>,
    toChallenged: (answer: P) => ChallengedPage,
    deadlineAt: number,
    signal: AbortSignal,
  ): Promise<P | undefined> {
    if (!solver || page.html === undefined) return undefined;
    const challenge = findCaptchaChallenge(page.html, page.finalUrl);
    if (!challenge) return undefined;
    const token = await this.solver.solve(
      solver,
      { widget: challenge.widget, sitekey: challenge.sitekey, pageUrl: page.finalUrl },
      deadlineAt,
      signal,
    );
    const submission = challengeSubmission(challenge, token);
    const headers: Record<string, string> = { referer: page.finalUrl };
    if (submission.body) headers['content-type'] = 'application/x-www-form-urlencoded';
    const answer = await submit({ ...submission, headers });
    const after = toChallenged(answer);
    if (after.html !== undefined && findCaptchaChallenge(after.html, after.finalUrl)) {
      throw new CaptchaError(CaptchaErrorCode.Unsolved, 'The target did not accept the solved CAPTCHA.');
    }
    return answer;
  }
}
