export { StreamedRpcClient } from './rpc-client';
export type { CallOptions, NotTakenReason, StreamedReply, StreamedRpcClientOptions } from './rpc-client';
export { StreamedRpcServer } from './rpc-server';
export type { RpcHandler, RpcReply, RpcRequest, StreamedRpcServerOptions } from './rpc-server';
