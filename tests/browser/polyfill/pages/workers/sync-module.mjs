// A module Worker: its relative imports resolve against this file.
import './scenarios.js';
