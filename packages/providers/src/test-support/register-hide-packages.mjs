import { register } from 'node:module';

register('./hide-packages-hooks.mjs', import.meta.url);
