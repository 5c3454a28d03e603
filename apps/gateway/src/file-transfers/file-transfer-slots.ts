import { Counter, Gauge, type Registry } from 'prom-client';
import { FileTransferError, FileTransferErrorCode } from './file-transfers.errors';

/**
 * Why a cap: a CSV upload and an export download each hold one Postgres connection for as long as
 * the client takes to send or read the file (one transaction, so the file is all-or-nothing or one
 * snapshot). Without a cap, a few slow clients would hold the whole pool and every short statement
 * of the API (admission, reads) would wait behind them. Per replica: the pool is per replica too.
 */
export class FileTransferSlots {
  private active = 0;
  private readonly refused?: Counter;

  constructor(
    readonly max: number,
    registry?: Registry,
  ) {
    if (!registry) return;
    const inUse = () => this.active;
    new Gauge({
      name: 'trawl_gateway_file_transfers',
      help: 'CSV uploads and export downloads in progress in this replica (each holds a Postgres connection)',
      registers: [registry],
      collect() {
        this.set(inUse());
      },
    });
    this.refused = new Counter({
      name: 'trawl_gateway_file_transfers_refused_total',
      help: 'Uploads and downloads refused with 503 transfers_busy because FILE_TRANSFERS_MAX were running',
      registers: [registry],
    });
  }

  /**
   * Takes a slot for one transfer; the returned function gives it back (calling it twice is harmless).
   * @throws FileTransferError `transfers_busy` when all `max` are taken.
   */
  take(): () => void {
    if (this.active >= this.max) {
      this.refused?.inc();
      throw new FileTransferError(
        FileTransferErrorCode.TransfersBusy,
        `This server is sending and receiving as many files as it may at once (${this.max}); try again in a few seconds.`,
      );
    }
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
    };
  }

  get inUse(): number {
    return this.active;
  }
}
