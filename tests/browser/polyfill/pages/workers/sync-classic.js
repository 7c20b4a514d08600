// A classic Worker: its relative importScripts resolve against this file.
importScripts('lib.js', 'scenarios.js');
