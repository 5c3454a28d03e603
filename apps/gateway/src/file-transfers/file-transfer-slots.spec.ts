import { Registry } from 'prom-client';
import { FileTransferSlots } from './file-transfer-slots';
import { FileTransferErrorCode } from './file-transfers.errors';

describe(FileTransferSlots.name, () => {
  it('gives out max slots, refuses the next with transfers_busy, and takes one back once however often it is released', async () => {
    const registry = new Registry();
    const slots = new FileTransferSlots(2, registry);
    const first = slots.take();
    slots.take();
    expect(() => slots.take()).toThrow(expect.objectContaining({ code: FileTransferErrorCode.TransfersBusy }));
    first();
    first();
    expect(slots.inUse).toBe(1);
    slots.take();
    expect(() => slots.take()).toThrow(expect.objectContaining({ code: FileTransferErrorCode.TransfersBusy }));
    const metrics = await registry.metrics();
    expect(metrics).toMatch(/^trawl_gateway_file_transfers 2$/m);
    expect(metrics).toMatch(/^trawl_gateway_file_transfers_refused_total 2$/m);
  });
});
