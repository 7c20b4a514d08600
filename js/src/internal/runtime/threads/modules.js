// Everything of the thread machinery the runtime reaches through the host
// (`host.loadThreads()`), in one object, as Pepper's is (pepper/modules.js):
// a run on one thread without an output ring never loads it, so Node
// starts a single-threaded command-line program without compiling the
// Worker, cooperative-thread and output-ring code.

import { coopAvailable, runCooperative } from './coop.js';
import { OutputRingWriter, isOutputRing } from './output-ring.js';
import { runInWorkers } from './spawn.js';

export const THREADS = Object.freeze({ coopAvailable, runCooperative, runInWorkers, OutputRingWriter, isOutputRing });
