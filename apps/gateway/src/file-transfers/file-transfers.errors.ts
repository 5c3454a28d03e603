import { ApiError } from '../problems/api-error';

/** Refusals of long file transfers (CSV uploads, export downloads). */
export enum FileTransferErrorCode {
  /** This replica runs as many uploads and downloads as it may at once. */
  TransfersBusy = 'transfers_busy',
}

declare module '../problems/api-error' {
  interface ApiErrorCodes {
    fileTransfers: FileTransferErrorCode;
  }
}

export class FileTransferError extends ApiError<FileTransferErrorCode> {}
