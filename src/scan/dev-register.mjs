// Development only (see dev-loader.mjs): `node --import ./src/scan/dev-register.mjs file.ts`.
import { register } from 'node:module';

register('./dev-loader.mjs', import.meta.url);
