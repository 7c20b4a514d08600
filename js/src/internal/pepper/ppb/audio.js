// PPB_AudioConfig;1.0/1.1 and PPB_Audio;1.0/1.1: the plugin's audio
// callback fills buffers on its own thread; the browser side moves them to
// the page's player (a ring an AudioWorklet reads, audio-ring.js).
//
//   PP_Resource AudioConfig.CreateStereo16Bit(PP_Instance instance, PP_AudioSampleRate sample_rate, uint32_t sample_frame_count)
//   uint32_t RecommendSampleFrameCount(PP_AudioSampleRate sample_rate, uint32_t requested)              (1.0)
//   uint32_t RecommendSampleFrameCount(PP_Instance instance, PP_AudioSampleRate sample_rate, uint32_t requested)  (1.1)
//   PP_Bool IsAudioConfig(PP_Resource resource)
//   PP_AudioSampleRate GetSampleRate(PP_Resource config)
//   uint32_t GetSampleFrameCount(PP_Resource config)
//   PP_AudioSampleRate RecommendSampleRate(PP_Instance instance)                                          (1.1)
//
//   PP_Resource Audio.Create(PP_Instance instance, PP_Resource config, PPB_Audio_Callback audio_callback, void* user_data)
//   PP_Bool IsAudio(PP_Resource resource)
//   PP_Resource GetCurrentConfig(PP_Resource audio)
//   PP_Bool StartPlayback(PP_Resource audio)      (runs on the caller's thread: plugin.js)
//   PP_Bool StopPlayback(PP_Resource audio)       (likewise)
//
// The audio thread is a real guest thread made with the plugin's own
// thread creator (ppapi_register_thread_creator: pthread_create, so it
// has TLS) whose start routine is the browser's PPB_AudioThreadMain: it
// asks `$Audio.wait` for the next period (the answer waits until the
// player has room), calls the callback on a buffer in guest memory, and
// hands it over with `$Audio.filled` (16-bit stereo → float frames).
// Without a player (Node) the interfaces are not offered.

import { INSTANCE_ID, PP_FALSE, PP_TRUE } from '../defs.js';

/** PP_AudioSampleRate values a config may have. */
export const RATES = Object.freeze([44100, 48000]);
/** PP_AUDIOMINSAMPLEFRAMECOUNT / PP_AUDIOMAXSAMPLEFRAMECOUNT. */
export const MIN_FRAMES = 64;
export const MAX_FRAMES = 32768;
/** What Chrome recommended at least: enough for the page's render thread. */
export const RECOMMENDED_FRAMES = 512;
/** The player's buffer: this many periods (latency vs. underruns). */
const PERIODS_BUFFERED = 4;

/** StartPlayback's first answer: why (not) to start a thread. */
export const START = Object.freeze({ FAILED: 0, START_THREAD: 1, ALREADY: 2 });

export default (b) => {
  const { resources, mem } = b;
  const config = (id) => resources.get(id, 'AudioConfig');
  const audio = (id) => resources.get(id, 'Audio');
  const recommend = (rate, requested) => {
    if (!RATES.includes(rate)) return 0;
    return Math.min(MAX_FRAMES, Math.max(RECOMMENDED_FRAMES, requested >>> 0, MIN_FRAMES));
  };
  const create = (version) => (cx, instance, configId, callback, userData) => {
    const c = config(configId);
    if (instance !== INSTANCE_ID || !c || callback === 0) return 0;
    resources.addRef(configId);
    return resources.add('Audio', {
      version,
      config: configId,
      rate: c.rate,
      frames: c.frames,
      callback,
      userData,
      playing: false,
      stopping: false,
      tid: 0,
      buffer: 0,
      stream: null,
      destroy() {
        this.stopping = true;
        this.stream?.close();
        if (this.buffer) b.heap.release(this.buffer);
        resources.release(this.config);
      },
    });
  };

  return {
    'PPB_AudioConfig;1.0:CreateStereo16Bit'(cx, instance, rate, frames) {
      if (instance !== INSTANCE_ID || !RATES.includes(rate)) return 0;
      if (frames < MIN_FRAMES || frames > MAX_FRAMES) return 0;
      return resources.add('AudioConfig', { rate, frames });
    },
    'PPB_AudioConfig;1.0:RecommendSampleFrameCount'(cx, rate, requested) {
      return recommend(rate, requested);
    },
    'PPB_AudioConfig;1.1:RecommendSampleFrameCount'(cx, instance, rate, requested) {
      return recommend(rate, requested);
    },
    'PPB_AudioConfig;1.0:IsAudioConfig'(cx, id) {
      return config(id) ? PP_TRUE : PP_FALSE;
    },
    'PPB_AudioConfig;1.0:GetSampleRate'(cx, id) {
      return config(id)?.rate ?? 0;
    },
    'PPB_AudioConfig;1.0:GetSampleFrameCount'(cx, id) {
      return config(id)?.frames ?? 0;
    },
    'PPB_AudioConfig;1.1:RecommendSampleRate'(cx, instance) {
      if (instance !== INSTANCE_ID) return 0;
      return b.embedder.audio?.sampleRate === 44100 ? 44100 : 48000;
    },

    'PPB_Audio;1.0:Create': create('1.0'),
    'PPB_Audio;1.1:Create': create('1.1'),
    'PPB_Audio;1.0:IsAudio'(cx, id) {
      return audio(id) ? PP_TRUE : PP_FALSE;
    },
    'PPB_Audio;1.0:GetCurrentConfig'(cx, id) {
      const a = audio(id);
      if (!a || !resources.addRef(a.config)) return 0;
      return a.config;
    },
    'PPB_Audio;1.0:StartPlayback'() {
      throw new Error('runtime bug: PPB_Audio.StartPlayback runs on the guest thread (plugin.js)');
    },
    'PPB_Audio;1.0:StopPlayback'() {
      throw new Error('runtime bug: PPB_Audio.StopPlayback runs on the guest thread (plugin.js)');
    },

    /**
     * StartPlayback's browser half: opens the player; payload
     * [thread_create] of the plugin's thread creator when a thread must start.
     */
    '$Audio.start'(cx, id) {
      const a = audio(id);
      if (!a || !b.embedder.audio) return START.FAILED;
      if (a.playing) return START.ALREADY;
      if (!b.threadCreator) {
        b.embedder.log?.('error', 'pexe', 'PPB_Audio: the plugin registered no thread creator, so no audio thread can start');
        return START.FAILED;
      }
      if (!a.buffer) a.buffer = b.heap.alloc(a.frames * 4);
      if (!a.buffer) return START.FAILED;
      a.stream ??= b.embedder.audio.open({ sampleRate: a.rate, channels: 2, frames: a.frames * PERIODS_BUFFERED });
      a.playing = true;
      a.stopping = false;
      return { value: START.START_THREAD, payload: [b.threadCreator.create] };
    },
    '$Audio.thread'(cx, id, tid) {
      const a = audio(id);
      if (a) a.tid = tid;
      return 0;
    },
    '$Audio.failed'(cx, id) {
      const a = audio(id);
      if (a) a.playing = false;
      return 0;
    },
    /**
     * The audio thread asks for its next period: waits until the player has
     * room; payload [go, callback, buffer, bytes, userData, 1.1?] and the
     * latency (seconds) as the answer's f64 — or [0] once stopped.
     */
    async '$Audio.wait'(cx, id) {
      const a = audio(id);
      if (!a || a.stopping || !a.playing) return { value: 0, payload: [0] };
      const room = await a.stream.waitForSpace(a.frames, () => a.stopping || !audio(id));
      if (!room || !audio(id) || a.stopping || !a.playing) return { value: 0, payload: [0] };
      const latency = a.stream.fill() / a.rate;
      return {
        value: latency,
        payload: [1, a.callback, a.buffer, a.frames * 4, a.userData, a.version === '1.1' ? 1 : 0],
      };
    },
    /** The callback filled the buffer: 16-bit stereo → float frames for the player. */
    '$Audio.filled'(cx, id) {
      const a = audio(id);
      if (!a?.stream) return 0;
      const n = a.frames * 2;
      mem.check(a.buffer, n * 2);
      const s16 = new Int16Array(mem.memory.buffer, a.buffer, n);
      const out = new Float32Array(n);
      for (let i = 0; i < n; i++) out[i] = s16[i] / 32768;
      a.stream.write(out);
      return 0;
    },
    /** StopPlayback's browser half: payload [thread_join, tid] to join, or [0] when not playing. */
    '$Audio.stop'(cx, id) {
      const a = audio(id);
      if (!a || !a.playing) return { value: 0, payload: [0] };
      a.stopping = true;
      a.playing = false;
      return { value: 1, payload: [b.threadCreator?.join ?? 0, a.tid] };
    },
  };
};
