import type { Frame, Page } from 'puppeteer-core';
import type { JsInstructionV1, WaitEvent } from '@trawl/contracts';
import { toPuppeteerSelector } from './selectors';
import { withTimeout } from './with-timeout';

/** One step of the report (fetch-details "json_response"). */
export interface InstructionReport {
  /** The instruction's name, e.g. `click`, `frame_fill`. */
  instruction: string;
  /** Its parameter as the client sent it (a selector, a number, a list). */
  params: unknown;
  success: boolean;
  /** Time the step took, in ms. */
  duration: number;
}

/** The `js_instructions_report` of a json_response. */
export interface InstructionsReport {
  /** Time all steps took, in ms. */
  instructions_duration: number;
  instructions_executed: number;
  instructions_succeeded: number;
  instructions_failed: number;
  instructions: InstructionReport[];
}

export interface InstructionLimits {
  /** Epoch ms: steps left when it passes are reported failed without running. */
  deadlineAt: number;
  /** Longest a single step may take, in ms; a `wait` lasts its own length instead. */
  stepTimeoutMs: number;
  /** Time kept after the steps for taking the page, in ms: a `wait` that would eat into it fails at once. Default 0. */
  reserveMs?: number;
}

// Idle windows for wait_event: networkidle = no request for 500 ms; "almost" tolerates 2 long-polls.
const NETWORK_IDLE = { idleTime: 500, concurrency: 0 } as const;
const NETWORK_ALMOST_IDLE = { idleTime: 500, concurrency: 2 } as const;

/**
 * Runs `instructions` in order on `page`, each under a time limit; a failed step is reported and
 * the next one runs (fetch-details "js_instructions"). Never throws for a step's failure.
 */
export async function runInstructions(
  page: Page,
  instructions: readonly JsInstructionV1[],
  limits: InstructionLimits,
): Promise<InstructionsReport> {
  const started = Date.now();
  const steps: InstructionReport[] = [];
  for (const instruction of instructions) {
    const [name, params] = Object.entries(instruction)[0] as [string, unknown];
    const stepStarted = Date.now();
    const left = limits.deadlineAt - stepStarted;
    const timeoutMs = Math.min(limits.stepTimeoutMs, left);
    let success = false;
    if ('wait' in instruction) {
      // A wait is asked for by length (up to 30 s, the contract's bound), not a step that may hang.
      // One that cannot end before the page must be taken fails at once: slept to the deadline, it
      // would fail the whole request instead of being reported.
      success = instruction.wait <= left - (limits.reserveMs ?? 0);
      if (success) await sleep(instruction.wait);
    } else if (timeoutMs > 0) {
      try {
        // The outer limit catches calls that ignore their own timeout option; the grace lets theirs fire first.
        await withTimeout(runStep(page, instruction, timeoutMs), timeoutMs + 500, name);
        success = true;
      } catch {
        success = false;
      }
    }
    steps.push({ instruction: name, params, success, duration: Date.now() - stepStarted });
  }
  const succeeded = steps.filter((step) => step.success).length;
  return {
    instructions_duration: Date.now() - started,
    instructions_executed: steps.length,
    instructions_succeeded: succeeded,
    instructions_failed: steps.length - succeeded,
    instructions: steps,
  };
}

async function runStep(page: Page, instruction: JsInstructionV1, timeoutMs: number): Promise<void> {
  const main = page.mainFrame();
  if ('click' in instruction) return click(main, instruction.click, timeoutMs);
  if ('wait_for' in instruction) return waitFor(main, instruction.wait_for, timeoutMs);
  if ('check' in instruction) return setChecked(main, instruction.check, true, timeoutMs);
  if ('uncheck' in instruction) return setChecked(main, instruction.uncheck, false, timeoutMs);
  // Waits are run by runInstructions (their length is not capped by the step timeout).
  if ('wait' in instruction) return sleep(Math.min(instruction.wait, timeoutMs));
  if ('fill' in instruction) return fill(main, ...instruction.fill, timeoutMs);
  if ('select_option' in instruction) return selectOption(main, ...instruction.select_option, timeoutMs);
  if ('scroll_y' in instruction) return void (await main.evaluate(`window.scrollBy(0, ${Number(instruction.scroll_y)})`));
  if ('scroll_x' in instruction) return void (await main.evaluate(`window.scrollBy(${Number(instruction.scroll_x)}, 0)`));
  if ('evaluate' in instruction) return void (await main.evaluate(instruction.evaluate));
  if ('wait_event' in instruction) return waitEvent(page, instruction.wait_event, timeoutMs);
  if ('frame_click' in instruction)
    return click(await frameOf(main, instruction.frame_click[0], timeoutMs), instruction.frame_click[1], timeoutMs);
  if ('frame_wait_for' in instruction)
    return waitFor(await frameOf(main, instruction.frame_wait_for[0], timeoutMs), instruction.frame_wait_for[1], timeoutMs);
  if ('frame_check' in instruction)
    return setChecked(await frameOf(main, instruction.frame_check[0], timeoutMs), instruction.frame_check[1], true, timeoutMs);
  if ('frame_uncheck' in instruction) {
    return setChecked(await frameOf(main, instruction.frame_uncheck[0], timeoutMs), instruction.frame_uncheck[1], false, timeoutMs);
  }
  if ('frame_fill' in instruction) {
    const [iframe, selector, value] = instruction.frame_fill;
    return fill(await frameOf(main, iframe, timeoutMs), selector, value, timeoutMs);
  }
  if ('frame_select_option' in instruction) {
    const [iframe, selector, value] = instruction.frame_select_option;
    return selectOption(await frameOf(main, iframe, timeoutMs), selector, value, timeoutMs);
  }
  if ('frame_evaluate' in instruction) {
    const [iframe, code] = instruction.frame_evaluate;
    return void (await (await frameOf(main, iframe, timeoutMs)).evaluate(code));
  }
  const never: never = instruction;
  throw new Error(`Unknown instruction ${JSON.stringify(never)}`);
}

/** The frame of the `<iframe>` matching `selector` in `frame`. */
async function frameOf(frame: Frame, selector: string, timeoutMs: number): Promise<Frame> {
  const element = await frame.waitForSelector(toPuppeteerSelector(selector), { timeout: timeoutMs });
  const content = await element?.contentFrame();
  if (!content) throw new Error(`${selector} is not an iframe`);
  return content;
}

async function click(frame: Frame, selector: string, timeoutMs: number): Promise<void> {
  await frame.locator(toPuppeteerSelector(selector)).setTimeout(timeoutMs).click();
}

async function waitFor(frame: Frame, selector: string, timeoutMs: number): Promise<void> {
  await frame.waitForSelector(toPuppeteerSelector(selector), { timeout: timeoutMs });
}

async function fill(frame: Frame, selector: string, value: string, timeoutMs: number): Promise<void> {
  await frame.locator(toPuppeteerSelector(selector)).setTimeout(timeoutMs).fill(value);
}

async function setChecked(frame: Frame, selector: string, checked: boolean, timeoutMs: number): Promise<void> {
  const element = await frame.waitForSelector(toPuppeteerSelector(selector), { timeout: timeoutMs });
  if (!element) throw new Error(`${selector} not found`);
  // Serialised into the page: `el` is a DOM element there.
  const current = await element.evaluate((el) => (el as unknown as { checked?: boolean }).checked);
  if (current === undefined) throw new Error(`${selector} is not a checkbox or radio button`);
  if (current !== checked) await element.click();
  const after = await element.evaluate((el) => (el as unknown as { checked?: boolean }).checked);
  if (after !== checked) throw new Error(`${selector} did not change`);
}

async function selectOption(frame: Frame, selector: string, value: string, timeoutMs: number): Promise<void> {
  const element = await frame.waitForSelector(toPuppeteerSelector(selector), { timeout: timeoutMs });
  if (!element) throw new Error(`${selector} not found`);
  const selected = await element.select(value);
  if (!selected.includes(value)) throw new Error(`${selector} has no option ${value}`);
}

async function waitEvent(page: Page, event: WaitEvent, timeoutMs: number): Promise<void> {
  switch (event) {
    case 'networkidle':
      return page.waitForNetworkIdle({ ...NETWORK_IDLE, timeout: timeoutMs });
    case 'networkalmostidle':
      return page.waitForNetworkIdle({ ...NETWORK_ALMOST_IDLE, timeout: timeoutMs });
    // The event may have fired already: readyState says whether it did.
    case 'load':
      return void (await page.mainFrame().waitForFunction('document.readyState === "complete"', { timeout: timeoutMs }));
    case 'domcontentloaded':
      return void (await page.mainFrame().waitForFunction('document.readyState !== "loading"', { timeout: timeoutMs }));
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
