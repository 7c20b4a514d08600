// Everything of Pepper the runtime reaches through load.js, in one object.

import { Browser } from './browser.js';
import { relayNetwork } from './net/relay-client.js';
import { PluginMain, pepperImports } from './plugin.js';

export const PEPPER = Object.freeze({ Browser, PluginMain, pepperImports, relayNetwork });
