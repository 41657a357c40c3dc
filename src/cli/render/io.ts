/** Where a render step writes: the streams of the process that shows the answer, and its environment. */
export interface RenderIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}
