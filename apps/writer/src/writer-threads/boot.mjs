// Worker threads start from plain JavaScript: register the TypeScript loader, then load
// the thread's real entry. (Loader flags of the parent are not inherited by workers.)
import { register } from 'tsx/esm/api';

register();
await import('./thread.ts');
