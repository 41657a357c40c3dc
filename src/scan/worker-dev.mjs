// Development only (see dev-loader.mjs): the worker entry when the pool runs from the TypeScript sources.
import './dev-register.mjs';

await import('./worker.ts');
