// Everything of Pepper the runtime reaches through load.js, in one object.

import { Browser } from './browser.js';
import { relayNetwork } from './net/relay-client.js';
import { PluginMain, pepperImports } from './plugin.js';
// The link to the browser side of a plugin that runs on the host thread.
import { DirectLink } from '../runtime/threads/rpc.js';

export const PEPPER = Object.freeze({ Browser, DirectLink, PluginMain, pepperImports, relayNetwork });
