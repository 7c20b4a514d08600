// Pepper (PPAPI) as a PNaCl pexe sees it: every browser interface (PPB_*)
// the runtime can answer through PPB_GetInterface, every plugin interface
// (PPP_*) the runtime calls, and the plugin entry points and callbacks, each
// with its members in vtable order and the C prototypes of Chromium's
// ppapi/c headers (ILP32).
//
// Format (src/abi/mod.rs reads it; the same as irt.h):
// - `interface NAME [WHERE]` starts an interface: the exact string a pexe
//   passes to get_interface ("PPB_Var;1.1", "PPP_Graphics_3D;1.0"); names
//   starting with `@` are not interface strings but groups of plugin entry
//   points and callback types the runtime calls (`@PP_StartFunctions`,
//   `@callbacks`). WHERE, for browser interfaces, says where the runtime
//   offers it: nothing = everywhere (Node and pages), `page` = only in a
//   page (it needs a surface, a player, the page's APIs), `nowhere` = not
//   implemented yet (get_interface answers NULL). A JavaScript test checks
//   that the runtime offers exactly this.
// - then one member per line: `RET NAME(TYPE NAME, ...)`, in the order of
//   the C struct. Aggregates are written `struct X` (passed and returned by
//   value exactly where the header does); typedef names are resolved by
//   src/abi/mod.rs (an unknown one is an error).
// - a member whose prototype is identical to the same member of an earlier
//   version of the same interface is the same function (one import).
//
// The pexe calling convention (../shared/reference/pepper-facts.md §1-2)
// follows from the C types and is applied by src/abi/mod.rs, not written
// here: a struct passed by value becomes a pointer to a caller-owned copy, a
// struct returned by value becomes a leading result pointer (sret), integers
// narrower than 32 bits widen to i32.

// ---- plugin entry points and callback types (called by the runtime) --------

interface @PP_StartFunctions
int32_t PPP_InitializeModule(PP_Module module, PPB_GetInterface get_browser_interface)
void PPP_ShutdownModule(void)
const void* PPP_GetInterface(const char* interface_name)

interface @PP_ThreadFunctions
int thread_create(uintptr_t* tid, PP_ThreadFunc func, void* thread_argument)
int thread_join(uintptr_t tid)

interface @callbacks
void PP_CompletionCallback_Func(void* user_data, int32_t result)
void* PP_ArrayOutput_GetDataBuffer(void* user_data, uint32_t element_count, uint32_t element_size)
void PP_ThreadFunc(void* thread_argument)
void PPB_Audio_Callback_1_0(void* sample_buffer, uint32_t buffer_size_in_bytes, void* user_data)
void PPB_Audio_Callback(void* sample_buffer, uint32_t buffer_size_in_bytes, PP_TimeDelta latency, void* user_data)

// The browser's lookup function: not an interface member, but a browser
// function the plugin calls through the pointer PPP_InitializeModule gets.
interface @browser
const void* PPB_GetInterface(const char* interface_name)
// The start routine of the audio thread PPB_Audio starts through the
// plugin's registered thread creator (PP_ThreadFunctions.thread_create casts
// it to a pthread start routine, so it has that type).
void* PPB_AudioThreadMain(void* thread_argument)

// ---- core ---------------------------------------------------------------------

interface PPB_Core;1.0
void AddRefResource(PP_Resource resource)
void ReleaseResource(PP_Resource resource)
PP_Time GetTime(void)
PP_TimeTicks GetTimeTicks(void)
void CallOnMainThread(int32_t delay_in_milliseconds, struct PP_CompletionCallback callback, int32_t result)
PP_Bool IsMainThread(void)

interface PPB_Var;1.0
void AddRef(struct PP_Var var)
void Release(struct PP_Var var)
struct PP_Var VarFromUtf8(PP_Module module, const char* data, uint32_t len)
const char* VarToUtf8(struct PP_Var var, uint32_t* len)

interface PPB_Var;1.1
void AddRef(struct PP_Var var)
void Release(struct PP_Var var)
struct PP_Var VarFromUtf8(const char* data, uint32_t len)
const char* VarToUtf8(struct PP_Var var, uint32_t* len)

interface PPB_Var;1.2
void AddRef(struct PP_Var var)
void Release(struct PP_Var var)
struct PP_Var VarFromUtf8(const char* data, uint32_t len)
const char* VarToUtf8(struct PP_Var var, uint32_t* len)
PP_Resource VarToResource(struct PP_Var var)
struct PP_Var VarFromResource(PP_Resource resource)

// ---- instance, messaging, vars, console, message loop, view -----------------

interface PPB_Instance;1.0
PP_Bool BindGraphics(PP_Instance instance, PP_Resource device)
PP_Bool IsFullFrame(PP_Instance instance)

interface PPB_Messaging;1.0
void PostMessage(PP_Instance instance, struct PP_Var message)

interface PPB_Messaging;1.2
void PostMessage(PP_Instance instance, struct PP_Var message)
int32_t RegisterMessageHandler(PP_Instance instance, void* user_data, const struct PPP_MessageHandler_0_2* handler, PP_Resource message_loop)
void UnregisterMessageHandler(PP_Instance instance)

interface PPB_VarArrayBuffer;1.0
struct PP_Var Create(uint32_t size_in_bytes)
PP_Bool ByteLength(struct PP_Var array, uint32_t* byte_length)
void* Map(struct PP_Var array)
void Unmap(struct PP_Var array)

interface PPB_VarArray;1.0
struct PP_Var Create(void)
struct PP_Var Get(struct PP_Var array, uint32_t index)
PP_Bool Set(struct PP_Var array, uint32_t index, struct PP_Var value)
uint32_t GetLength(struct PP_Var array)
PP_Bool SetLength(struct PP_Var array, uint32_t length)

interface PPB_VarDictionary;1.0
struct PP_Var Create(void)
struct PP_Var Get(struct PP_Var dict, struct PP_Var key)
PP_Bool Set(struct PP_Var dict, struct PP_Var key, struct PP_Var value)
void Delete(struct PP_Var dict, struct PP_Var key)
PP_Bool HasKey(struct PP_Var dict, struct PP_Var key)
struct PP_Var GetKeys(struct PP_Var dict)

interface PPB_Console;1.0
void Log(PP_Instance instance, PP_LogLevel level, struct PP_Var value)
void LogWithSource(PP_Instance instance, PP_LogLevel level, struct PP_Var source, struct PP_Var value)

interface PPB_MessageLoop;1.0
PP_Resource Create(PP_Instance instance)
PP_Resource GetForMainThread(void)
PP_Resource GetCurrent(void)
int32_t AttachToCurrentThread(PP_Resource message_loop)
int32_t Run(PP_Resource message_loop)
int32_t PostWork(PP_Resource message_loop, struct PP_CompletionCallback callback, int64_t delay_ms)
int32_t PostQuit(PP_Resource message_loop, PP_Bool should_destroy)

interface PPB_View;1.0
PP_Bool IsView(PP_Resource resource)
PP_Bool GetRect(PP_Resource resource, struct PP_Rect* rect)
PP_Bool IsFullscreen(PP_Resource resource)
PP_Bool IsVisible(PP_Resource resource)
PP_Bool IsPageVisible(PP_Resource resource)
PP_Bool GetClipRect(PP_Resource resource, struct PP_Rect* clip)

interface PPB_View;1.1
PP_Bool IsView(PP_Resource resource)
PP_Bool GetRect(PP_Resource resource, struct PP_Rect* rect)
PP_Bool IsFullscreen(PP_Resource resource)
PP_Bool IsVisible(PP_Resource resource)
PP_Bool IsPageVisible(PP_Resource resource)
PP_Bool GetClipRect(PP_Resource resource, struct PP_Rect* clip)
float GetDeviceScale(PP_Resource resource)
float GetCSSScale(PP_Resource resource)

interface PPB_View;1.2
PP_Bool IsView(PP_Resource resource)
PP_Bool GetRect(PP_Resource resource, struct PP_Rect* rect)
PP_Bool IsFullscreen(PP_Resource resource)
PP_Bool IsVisible(PP_Resource resource)
PP_Bool IsPageVisible(PP_Resource resource)
PP_Bool GetClipRect(PP_Resource resource, struct PP_Rect* clip)
float GetDeviceScale(PP_Resource resource)
float GetCSSScale(PP_Resource resource)
PP_Bool GetScrollOffset(PP_Resource resource, struct PP_Point* offset)

// ---- URL loading ------------------------------------------------------------

interface PPB_URLLoader;1.0
PP_Resource Create(PP_Instance instance)
PP_Bool IsURLLoader(PP_Resource resource)
int32_t Open(PP_Resource loader, PP_Resource request_info, struct PP_CompletionCallback callback)
int32_t FollowRedirect(PP_Resource loader, struct PP_CompletionCallback callback)
PP_Bool GetUploadProgress(PP_Resource loader, int64_t* bytes_sent, int64_t* total_bytes_to_be_sent)
PP_Bool GetDownloadProgress(PP_Resource loader, int64_t* bytes_received, int64_t* total_bytes_to_be_received)
PP_Resource GetResponseInfo(PP_Resource loader)
int32_t ReadResponseBody(PP_Resource loader, void* buffer, int32_t bytes_to_read, struct PP_CompletionCallback callback)
int32_t FinishStreamingToFile(PP_Resource loader, struct PP_CompletionCallback callback)
void Close(PP_Resource loader)

interface PPB_URLRequestInfo;1.0
PP_Resource Create(PP_Instance instance)
PP_Bool IsURLRequestInfo(PP_Resource resource)
PP_Bool SetProperty(PP_Resource request, PP_URLRequestProperty property, struct PP_Var value)
PP_Bool AppendDataToBody(PP_Resource request, const void* data, uint32_t len)
PP_Bool AppendFileToBody(PP_Resource request, PP_Resource file_ref, int64_t start_offset, int64_t number_of_bytes, PP_Time expected_last_modified_time)

interface PPB_URLResponseInfo;1.0
PP_Bool IsURLResponseInfo(PP_Resource resource)
struct PP_Var GetProperty(PP_Resource response, PP_URLResponseProperty property)
PP_Resource GetBodyAsFileRef(PP_Resource response)

// ---- 2D and 3D graphics -----------------------------------------------------

interface PPB_Graphics2D;1.0
PP_Resource Create(PP_Instance instance, const struct PP_Size* size, PP_Bool is_always_opaque)
PP_Bool IsGraphics2D(PP_Resource resource)
PP_Bool Describe(PP_Resource graphics_2d, struct PP_Size* size, PP_Bool* is_always_opaque)
void PaintImageData(PP_Resource graphics_2d, PP_Resource image_data, const struct PP_Point* top_left, const struct PP_Rect* src_rect)
void Scroll(PP_Resource graphics_2d, const struct PP_Rect* clip_rect, const struct PP_Point* amount)
void ReplaceContents(PP_Resource graphics_2d, PP_Resource image_data)
int32_t Flush(PP_Resource graphics_2d, struct PP_CompletionCallback callback)

interface PPB_Graphics2D;1.1
PP_Resource Create(PP_Instance instance, const struct PP_Size* size, PP_Bool is_always_opaque)
PP_Bool IsGraphics2D(PP_Resource resource)
PP_Bool Describe(PP_Resource graphics_2d, struct PP_Size* size, PP_Bool* is_always_opaque)
void PaintImageData(PP_Resource graphics_2d, PP_Resource image_data, const struct PP_Point* top_left, const struct PP_Rect* src_rect)
void Scroll(PP_Resource graphics_2d, const struct PP_Rect* clip_rect, const struct PP_Point* amount)
void ReplaceContents(PP_Resource graphics_2d, PP_Resource image_data)
int32_t Flush(PP_Resource graphics_2d, struct PP_CompletionCallback callback)
PP_Bool SetScale(PP_Resource resource, float scale)
float GetScale(PP_Resource resource)

interface PPB_Graphics2D;1.2
PP_Resource Create(PP_Instance instance, const struct PP_Size* size, PP_Bool is_always_opaque)
PP_Bool IsGraphics2D(PP_Resource resource)
PP_Bool Describe(PP_Resource graphics_2d, struct PP_Size* size, PP_Bool* is_always_opaque)
void PaintImageData(PP_Resource graphics_2d, PP_Resource image_data, const struct PP_Point* top_left, const struct PP_Rect* src_rect)
void Scroll(PP_Resource graphics_2d, const struct PP_Rect* clip_rect, const struct PP_Point* amount)
void ReplaceContents(PP_Resource graphics_2d, PP_Resource image_data)
int32_t Flush(PP_Resource graphics_2d, struct PP_CompletionCallback callback)
PP_Bool SetScale(PP_Resource resource, float scale)
float GetScale(PP_Resource resource)
PP_Bool SetLayerTransform(PP_Resource resource, float scale, const struct PP_Point* origin, const struct PP_Point* translate)

interface PPB_ImageData;1.0
PP_ImageDataFormat GetNativeImageDataFormat(void)
PP_Bool IsImageDataFormatSupported(PP_ImageDataFormat format)
PP_Resource Create(PP_Instance instance, PP_ImageDataFormat format, const struct PP_Size* size, PP_Bool init_to_zero)
PP_Bool IsImageData(PP_Resource image_data)
PP_Bool Describe(PP_Resource image_data, struct PP_ImageDataDesc* desc)
void* Map(PP_Resource image_data)
void Unmap(PP_Resource image_data)

interface PPB_Graphics3D;1.0 page
int32_t GetAttribMaxValue(PP_Resource instance, int32_t attribute, int32_t* value)
PP_Resource Create(PP_Instance instance, PP_Resource share_context, const int32_t attrib_list[])
PP_Bool IsGraphics3D(PP_Resource resource)
int32_t GetAttribs(PP_Resource context, int32_t attrib_list[])
int32_t SetAttribs(PP_Resource context, const int32_t attrib_list[])
int32_t GetError(PP_Resource context)
int32_t ResizeBuffers(PP_Resource context, int32_t width, int32_t height)
int32_t SwapBuffers(PP_Resource context, struct PP_CompletionCallback callback)

// ---- OpenGL ES 2.0 (ppb_opengles2.h, dev/ppb_opengles2ext_dev.h) ------------

interface PPB_OpenGLES2;1.0 page
void ActiveTexture(PP_Resource context, GLenum texture)
void AttachShader(PP_Resource context, GLuint program, GLuint shader)
void BindAttribLocation(PP_Resource context, GLuint program, GLuint index, const char* name)
void BindBuffer(PP_Resource context, GLenum target, GLuint buffer)
void BindFramebuffer(PP_Resource context, GLenum target, GLuint framebuffer)
void BindRenderbuffer(PP_Resource context, GLenum target, GLuint renderbuffer)
void BindTexture(PP_Resource context, GLenum target, GLuint texture)
void BlendColor(PP_Resource context, GLclampf red, GLclampf green, GLclampf blue, GLclampf alpha)
void BlendEquation(PP_Resource context, GLenum mode)
void BlendEquationSeparate(PP_Resource context, GLenum modeRGB, GLenum modeAlpha)
void BlendFunc(PP_Resource context, GLenum sfactor, GLenum dfactor)
void BlendFuncSeparate(PP_Resource context, GLenum srcRGB, GLenum dstRGB, GLenum srcAlpha, GLenum dstAlpha)
void BufferData(PP_Resource context, GLenum target, GLsizeiptr size, const void* data, GLenum usage)
void BufferSubData(PP_Resource context, GLenum target, GLintptr offset, GLsizeiptr size, const void* data)
GLenum CheckFramebufferStatus(PP_Resource context, GLenum target)
void Clear(PP_Resource context, GLbitfield mask)
void ClearColor(PP_Resource context, GLclampf red, GLclampf green, GLclampf blue, GLclampf alpha)
void ClearDepthf(PP_Resource context, GLclampf depth)
void ClearStencil(PP_Resource context, GLint s)
void ColorMask(PP_Resource context, GLboolean red, GLboolean green, GLboolean blue, GLboolean alpha)
void CompileShader(PP_Resource context, GLuint shader)
void CompressedTexImage2D(PP_Resource context, GLenum target, GLint level, GLenum internalformat, GLsizei width, GLsizei height, GLint border, GLsizei imageSize, const void* data)
void CompressedTexSubImage2D(PP_Resource context, GLenum target, GLint level, GLint xoffset, GLint yoffset, GLsizei width, GLsizei height, GLenum format, GLsizei imageSize, const void* data)
void CopyTexImage2D(PP_Resource context, GLenum target, GLint level, GLenum internalformat, GLint x, GLint y, GLsizei width, GLsizei height, GLint border)
void CopyTexSubImage2D(PP_Resource context, GLenum target, GLint level, GLint xoffset, GLint yoffset, GLint x, GLint y, GLsizei width, GLsizei height)
GLuint CreateProgram(PP_Resource context)
GLuint CreateShader(PP_Resource context, GLenum type)
void CullFace(PP_Resource context, GLenum mode)
void DeleteBuffers(PP_Resource context, GLsizei n, const GLuint* buffers)
void DeleteFramebuffers(PP_Resource context, GLsizei n, const GLuint* framebuffers)
void DeleteProgram(PP_Resource context, GLuint program)
void DeleteRenderbuffers(PP_Resource context, GLsizei n, const GLuint* renderbuffers)
void DeleteShader(PP_Resource context, GLuint shader)
void DeleteTextures(PP_Resource context, GLsizei n, const GLuint* textures)
void DepthFunc(PP_Resource context, GLenum func)
void DepthMask(PP_Resource context, GLboolean flag)
void DepthRangef(PP_Resource context, GLclampf zNear, GLclampf zFar)
void DetachShader(PP_Resource context, GLuint program, GLuint shader)
void Disable(PP_Resource context, GLenum cap)
void DisableVertexAttribArray(PP_Resource context, GLuint index)
void DrawArrays(PP_Resource context, GLenum mode, GLint first, GLsizei count)
void DrawElements(PP_Resource context, GLenum mode, GLsizei count, GLenum type, const void* indices)
void Enable(PP_Resource context, GLenum cap)
void EnableVertexAttribArray(PP_Resource context, GLuint index)
void Finish(PP_Resource context)
void Flush(PP_Resource context)
void FramebufferRenderbuffer(PP_Resource context, GLenum target, GLenum attachment, GLenum renderbuffertarget, GLuint renderbuffer)
void FramebufferTexture2D(PP_Resource context, GLenum target, GLenum attachment, GLenum textarget, GLuint texture, GLint level)
void FrontFace(PP_Resource context, GLenum mode)
void GenBuffers(PP_Resource context, GLsizei n, GLuint* buffers)
void GenerateMipmap(PP_Resource context, GLenum target)
void GenFramebuffers(PP_Resource context, GLsizei n, GLuint* framebuffers)
void GenRenderbuffers(PP_Resource context, GLsizei n, GLuint* renderbuffers)
void GenTextures(PP_Resource context, GLsizei n, GLuint* textures)
void GetActiveAttrib(PP_Resource context, GLuint program, GLuint index, GLsizei bufsize, GLsizei* length, GLint* size, GLenum* type, char* name)
void GetActiveUniform(PP_Resource context, GLuint program, GLuint index, GLsizei bufsize, GLsizei* length, GLint* size, GLenum* type, char* name)
void GetAttachedShaders(PP_Resource context, GLuint program, GLsizei maxcount, GLsizei* count, GLuint* shaders)
GLint GetAttribLocation(PP_Resource context, GLuint program, const char* name)
void GetBooleanv(PP_Resource context, GLenum pname, GLboolean* params)
void GetBufferParameteriv(PP_Resource context, GLenum target, GLenum pname, GLint* params)
GLenum GetError(PP_Resource context)
void GetFloatv(PP_Resource context, GLenum pname, GLfloat* params)
void GetFramebufferAttachmentParameteriv(PP_Resource context, GLenum target, GLenum attachment, GLenum pname, GLint* params)
void GetIntegerv(PP_Resource context, GLenum pname, GLint* params)
void GetProgramiv(PP_Resource context, GLuint program, GLenum pname, GLint* params)
void GetProgramInfoLog(PP_Resource context, GLuint program, GLsizei bufsize, GLsizei* length, char* infolog)
void GetRenderbufferParameteriv(PP_Resource context, GLenum target, GLenum pname, GLint* params)
void GetShaderiv(PP_Resource context, GLuint shader, GLenum pname, GLint* params)
void GetShaderInfoLog(PP_Resource context, GLuint shader, GLsizei bufsize, GLsizei* length, char* infolog)
void GetShaderPrecisionFormat(PP_Resource context, GLenum shadertype, GLenum precisiontype, GLint* range, GLint* precision)
void GetShaderSource(PP_Resource context, GLuint shader, GLsizei bufsize, GLsizei* length, char* source)
const GLubyte* GetString(PP_Resource context, GLenum name)
void GetTexParameterfv(PP_Resource context, GLenum target, GLenum pname, GLfloat* params)
void GetTexParameteriv(PP_Resource context, GLenum target, GLenum pname, GLint* params)
void GetUniformfv(PP_Resource context, GLuint program, GLint location, GLfloat* params)
void GetUniformiv(PP_Resource context, GLuint program, GLint location, GLint* params)
GLint GetUniformLocation(PP_Resource context, GLuint program, const char* name)
void GetVertexAttribfv(PP_Resource context, GLuint index, GLenum pname, GLfloat* params)
void GetVertexAttribiv(PP_Resource context, GLuint index, GLenum pname, GLint* params)
void GetVertexAttribPointerv(PP_Resource context, GLuint index, GLenum pname, void** pointer)
void Hint(PP_Resource context, GLenum target, GLenum mode)
GLboolean IsBuffer(PP_Resource context, GLuint buffer)
GLboolean IsEnabled(PP_Resource context, GLenum cap)
GLboolean IsFramebuffer(PP_Resource context, GLuint framebuffer)
GLboolean IsProgram(PP_Resource context, GLuint program)
GLboolean IsRenderbuffer(PP_Resource context, GLuint renderbuffer)
GLboolean IsShader(PP_Resource context, GLuint shader)
GLboolean IsTexture(PP_Resource context, GLuint texture)
void LineWidth(PP_Resource context, GLfloat width)
void LinkProgram(PP_Resource context, GLuint program)
void PixelStorei(PP_Resource context, GLenum pname, GLint param)
void PolygonOffset(PP_Resource context, GLfloat factor, GLfloat units)
void ReadPixels(PP_Resource context, GLint x, GLint y, GLsizei width, GLsizei height, GLenum format, GLenum type, void* pixels)
void ReleaseShaderCompiler(PP_Resource context)
void RenderbufferStorage(PP_Resource context, GLenum target, GLenum internalformat, GLsizei width, GLsizei height)
void SampleCoverage(PP_Resource context, GLclampf value, GLboolean invert)
void Scissor(PP_Resource context, GLint x, GLint y, GLsizei width, GLsizei height)
void ShaderBinary(PP_Resource context, GLsizei n, const GLuint* shaders, GLenum binaryformat, const void* binary, GLsizei length)
void ShaderSource(PP_Resource context, GLuint shader, GLsizei count, const char** str, const GLint* length)
void StencilFunc(PP_Resource context, GLenum func, GLint ref, GLuint mask)
void StencilFuncSeparate(PP_Resource context, GLenum face, GLenum func, GLint ref, GLuint mask)
void StencilMask(PP_Resource context, GLuint mask)
void StencilMaskSeparate(PP_Resource context, GLenum face, GLuint mask)
void StencilOp(PP_Resource context, GLenum fail, GLenum zfail, GLenum zpass)
void StencilOpSeparate(PP_Resource context, GLenum face, GLenum fail, GLenum zfail, GLenum zpass)
void TexImage2D(PP_Resource context, GLenum target, GLint level, GLint internalformat, GLsizei width, GLsizei height, GLint border, GLenum format, GLenum type, const void* pixels)
void TexParameterf(PP_Resource context, GLenum target, GLenum pname, GLfloat param)
void TexParameterfv(PP_Resource context, GLenum target, GLenum pname, const GLfloat* params)
void TexParameteri(PP_Resource context, GLenum target, GLenum pname, GLint param)
void TexParameteriv(PP_Resource context, GLenum target, GLenum pname, const GLint* params)
void TexSubImage2D(PP_Resource context, GLenum target, GLint level, GLint xoffset, GLint yoffset, GLsizei width, GLsizei height, GLenum format, GLenum type, const void* pixels)
void Uniform1f(PP_Resource context, GLint location, GLfloat x)
void Uniform1fv(PP_Resource context, GLint location, GLsizei count, const GLfloat* v)
void Uniform1i(PP_Resource context, GLint location, GLint x)
void Uniform1iv(PP_Resource context, GLint location, GLsizei count, const GLint* v)
void Uniform2f(PP_Resource context, GLint location, GLfloat x, GLfloat y)
void Uniform2fv(PP_Resource context, GLint location, GLsizei count, const GLfloat* v)
void Uniform2i(PP_Resource context, GLint location, GLint x, GLint y)
void Uniform2iv(PP_Resource context, GLint location, GLsizei count, const GLint* v)
void Uniform3f(PP_Resource context, GLint location, GLfloat x, GLfloat y, GLfloat z)
void Uniform3fv(PP_Resource context, GLint location, GLsizei count, const GLfloat* v)
void Uniform3i(PP_Resource context, GLint location, GLint x, GLint y, GLint z)
void Uniform3iv(PP_Resource context, GLint location, GLsizei count, const GLint* v)
void Uniform4f(PP_Resource context, GLint location, GLfloat x, GLfloat y, GLfloat z, GLfloat w)
void Uniform4fv(PP_Resource context, GLint location, GLsizei count, const GLfloat* v)
void Uniform4i(PP_Resource context, GLint location, GLint x, GLint y, GLint z, GLint w)
void Uniform4iv(PP_Resource context, GLint location, GLsizei count, const GLint* v)
void UniformMatrix2fv(PP_Resource context, GLint location, GLsizei count, GLboolean transpose, const GLfloat* value)
void UniformMatrix3fv(PP_Resource context, GLint location, GLsizei count, GLboolean transpose, const GLfloat* value)
void UniformMatrix4fv(PP_Resource context, GLint location, GLsizei count, GLboolean transpose, const GLfloat* value)
void UseProgram(PP_Resource context, GLuint program)
void ValidateProgram(PP_Resource context, GLuint program)
void VertexAttrib1f(PP_Resource context, GLuint indx, GLfloat x)
void VertexAttrib1fv(PP_Resource context, GLuint indx, const GLfloat* values)
void VertexAttrib2f(PP_Resource context, GLuint indx, GLfloat x, GLfloat y)
void VertexAttrib2fv(PP_Resource context, GLuint indx, const GLfloat* values)
void VertexAttrib3f(PP_Resource context, GLuint indx, GLfloat x, GLfloat y, GLfloat z)
void VertexAttrib3fv(PP_Resource context, GLuint indx, const GLfloat* values)
void VertexAttrib4f(PP_Resource context, GLuint indx, GLfloat x, GLfloat y, GLfloat z, GLfloat w)
void VertexAttrib4fv(PP_Resource context, GLuint indx, const GLfloat* values)
void VertexAttribPointer(PP_Resource context, GLuint indx, GLint size, GLenum type, GLboolean normalized, GLsizei stride, const void* ptr)
void Viewport(PP_Resource context, GLint x, GLint y, GLsizei width, GLsizei height)

interface PPB_OpenGLES2InstancedArrays;1.0 page
void DrawArraysInstancedANGLE(PP_Resource context, GLenum mode, GLint first, GLsizei count, GLsizei primcount)
void DrawElementsInstancedANGLE(PP_Resource context, GLenum mode, GLsizei count, GLenum type, const void* indices, GLsizei primcount)
void VertexAttribDivisorANGLE(PP_Resource context, GLuint index, GLuint divisor)

interface PPB_OpenGLES2FramebufferBlit;1.0 page
void BlitFramebufferEXT(PP_Resource context, GLint srcX0, GLint srcY0, GLint srcX1, GLint srcY1, GLint dstX0, GLint dstY0, GLint dstX1, GLint dstY1, GLbitfield mask, GLenum filter)

interface PPB_OpenGLES2FramebufferMultisample;1.0 page
void RenderbufferStorageMultisampleEXT(PP_Resource context, GLenum target, GLsizei samples, GLenum internalformat, GLsizei width, GLsizei height)

interface PPB_OpenGLES2ChromiumEnableFeature;1.0 page
GLboolean EnableFeatureCHROMIUM(PP_Resource context, const char* feature)

interface PPB_OpenGLES2ChromiumMapSub;1.0 page
void* MapBufferSubDataCHROMIUM(PP_Resource context, GLuint target, GLintptr offset, GLsizeiptr size, GLenum access)
void UnmapBufferSubDataCHROMIUM(PP_Resource context, const void* mem)
void* MapTexSubImage2DCHROMIUM(PP_Resource context, GLenum target, GLint level, GLint xoffset, GLint yoffset, GLsizei width, GLsizei height, GLenum format, GLenum type, GLenum access)
void UnmapTexSubImage2DCHROMIUM(PP_Resource context, const void* mem)

interface PPB_OpenGLES2Query;1.0 page
void GenQueriesEXT(PP_Resource context, GLsizei n, GLuint* queries)
void DeleteQueriesEXT(PP_Resource context, GLsizei n, const GLuint* queries)
GLboolean IsQueryEXT(PP_Resource context, GLuint id)
void BeginQueryEXT(PP_Resource context, GLenum target, GLuint id)
void EndQueryEXT(PP_Resource context, GLenum target)
void GetQueryivEXT(PP_Resource context, GLenum target, GLenum pname, GLint* params)
void GetQueryObjectuivEXT(PP_Resource context, GLuint id, GLenum pname, GLuint* params)

interface PPB_OpenGLES2VertexArrayObject;1.0 page
void GenVertexArraysOES(PP_Resource context, GLsizei n, GLuint* arrays)
void DeleteVertexArraysOES(PP_Resource context, GLsizei n, const GLuint* arrays)
GLboolean IsVertexArrayOES(PP_Resource context, GLuint array)
void BindVertexArrayOES(PP_Resource context, GLuint array)

interface PPB_OpenGLES2DrawBuffers(Dev);1.0 page
void DrawBuffersEXT(PP_Resource context, GLsizei count, const GLenum* bufs)

// ---- input ------------------------------------------------------------------
// PPB_TouchInputEvent;1.4 (like PPB_Graphics2D;1.2) is in Chromium's headers
// only after M49 (2017 and 2016).

interface PPB_InputEvent;1.0
int32_t RequestInputEvents(PP_Instance instance, uint32_t event_classes)
int32_t RequestFilteringInputEvents(PP_Instance instance, uint32_t event_classes)
void ClearInputEventRequest(PP_Instance instance, uint32_t event_classes)
PP_Bool IsInputEvent(PP_Resource resource)
PP_InputEvent_Type GetType(PP_Resource event)
PP_TimeTicks GetTimeStamp(PP_Resource event)
uint32_t GetModifiers(PP_Resource event)

interface PPB_MouseInputEvent;1.0
PP_Resource Create(PP_Instance instance, PP_InputEvent_Type type, PP_TimeTicks time_stamp, uint32_t modifiers, PP_InputEvent_MouseButton mouse_button, const struct PP_Point* mouse_position, int32_t click_count)
PP_Bool IsMouseInputEvent(PP_Resource resource)
PP_InputEvent_MouseButton GetButton(PP_Resource mouse_event)
struct PP_Point GetPosition(PP_Resource mouse_event)
int32_t GetClickCount(PP_Resource mouse_event)

interface PPB_MouseInputEvent;1.1
PP_Resource Create(PP_Instance instance, PP_InputEvent_Type type, PP_TimeTicks time_stamp, uint32_t modifiers, PP_InputEvent_MouseButton mouse_button, const struct PP_Point* mouse_position, int32_t click_count, const struct PP_Point* mouse_movement)
PP_Bool IsMouseInputEvent(PP_Resource resource)
PP_InputEvent_MouseButton GetButton(PP_Resource mouse_event)
struct PP_Point GetPosition(PP_Resource mouse_event)
int32_t GetClickCount(PP_Resource mouse_event)
struct PP_Point GetMovement(PP_Resource mouse_event)

interface PPB_WheelInputEvent;1.0
PP_Resource Create(PP_Instance instance, PP_TimeTicks time_stamp, uint32_t modifiers, const struct PP_FloatPoint* wheel_delta, const struct PP_FloatPoint* wheel_ticks, PP_Bool scroll_by_page)
PP_Bool IsWheelInputEvent(PP_Resource resource)
struct PP_FloatPoint GetDelta(PP_Resource wheel_event)
struct PP_FloatPoint GetTicks(PP_Resource wheel_event)
PP_Bool GetScrollByPage(PP_Resource wheel_event)

interface PPB_KeyboardInputEvent;1.0
PP_Resource Create(PP_Instance instance, PP_InputEvent_Type type, PP_TimeTicks time_stamp, uint32_t modifiers, uint32_t key_code, struct PP_Var character_text)
PP_Bool IsKeyboardInputEvent(PP_Resource resource)
uint32_t GetKeyCode(PP_Resource key_event)
struct PP_Var GetCharacterText(PP_Resource character_event)

interface PPB_KeyboardInputEvent;1.2
PP_Resource Create(PP_Instance instance, PP_InputEvent_Type type, PP_TimeTicks time_stamp, uint32_t modifiers, uint32_t key_code, struct PP_Var character_text, struct PP_Var code)
PP_Bool IsKeyboardInputEvent(PP_Resource resource)
uint32_t GetKeyCode(PP_Resource key_event)
struct PP_Var GetCharacterText(PP_Resource character_event)
struct PP_Var GetCode(PP_Resource key_event)

interface PPB_TouchInputEvent;1.0
PP_Resource Create(PP_Instance instance, PP_InputEvent_Type type, PP_TimeTicks time_stamp, uint32_t modifiers)
void AddTouchPoint(PP_Resource touch_event, PP_TouchListType list, const struct PP_TouchPoint* point)
PP_Bool IsTouchInputEvent(PP_Resource resource)
uint32_t GetTouchCount(PP_Resource resource, PP_TouchListType list)
struct PP_TouchPoint GetTouchByIndex(PP_Resource resource, PP_TouchListType list, uint32_t index)
struct PP_TouchPoint GetTouchById(PP_Resource resource, PP_TouchListType list, uint32_t touch_id)

interface PPB_TouchInputEvent;1.4
PP_Resource Create(PP_Instance instance, PP_InputEvent_Type type, PP_TimeTicks time_stamp, uint32_t modifiers)
void AddTouchPoint(PP_Resource touch_event, PP_TouchListType list, const struct PP_TouchPoint* point)
PP_Bool IsTouchInputEvent(PP_Resource resource)
uint32_t GetTouchCount(PP_Resource resource, PP_TouchListType list)
struct PP_TouchPoint GetTouchByIndex(PP_Resource resource, PP_TouchListType list, uint32_t index)
struct PP_TouchPoint GetTouchById(PP_Resource resource, PP_TouchListType list, uint32_t touch_id)
struct PP_FloatPoint GetTouchTiltByIndex(PP_Resource resource, PP_TouchListType list, uint32_t index)
struct PP_FloatPoint GetTouchTiltById(PP_Resource resource, PP_TouchListType list, uint32_t touch_id)

interface PPB_IMEInputEvent;1.0
PP_Resource Create(PP_Instance instance, PP_InputEvent_Type type, PP_TimeTicks time_stamp, struct PP_Var text, uint32_t segment_number, const uint32_t segment_offsets[], int32_t target_segment, uint32_t selection_start, uint32_t selection_end)
PP_Bool IsIMEInputEvent(PP_Resource resource)
struct PP_Var GetText(PP_Resource ime_event)
uint32_t GetSegmentNumber(PP_Resource ime_event)
uint32_t GetSegmentOffset(PP_Resource ime_event, uint32_t index)
int32_t GetTargetSegment(PP_Resource ime_event)
void GetSelection(PP_Resource ime_event, uint32_t* start, uint32_t* end)

interface PPB_TextInputController;1.0
void SetTextInputType(PP_Instance instance, PP_TextInput_Type type)
void UpdateCaretPosition(PP_Instance instance, const struct PP_Rect* caret)
void CancelCompositionText(PP_Instance instance)
void UpdateSurroundingText(PP_Instance instance, struct PP_Var text, uint32_t caret, uint32_t anchor)

interface PPB_MouseCursor;1.0 page
PP_Bool SetCursor(PP_Instance instance, enum PP_MouseCursor_Type type, PP_Resource image, const struct PP_Point* hot_spot)

interface PPB_MouseLock;1.0 page
int32_t LockMouse(PP_Instance instance, struct PP_CompletionCallback callback)
void UnlockMouse(PP_Instance instance)

interface PPB_Fullscreen;1.0 page
PP_Bool IsFullscreen(PP_Instance instance)
PP_Bool SetFullscreen(PP_Instance instance, PP_Bool fullscreen)
PP_Bool GetScreenSize(PP_Instance instance, struct PP_Size* size)

interface PPB_Gamepad;1.0 page
void Sample(PP_Instance instance, struct PP_GamepadsSampleData* data)

// ---- audio ------------------------------------------------------------------

interface PPB_Audio;1.0 page
PP_Resource Create(PP_Instance instance, PP_Resource config, PPB_Audio_Callback_1_0 audio_callback, void* user_data)
PP_Bool IsAudio(PP_Resource resource)
PP_Resource GetCurrentConfig(PP_Resource audio)
PP_Bool StartPlayback(PP_Resource audio)
PP_Bool StopPlayback(PP_Resource audio)

interface PPB_Audio;1.1 page
PP_Resource Create(PP_Instance instance, PP_Resource config, PPB_Audio_Callback audio_callback, void* user_data)
PP_Bool IsAudio(PP_Resource resource)
PP_Resource GetCurrentConfig(PP_Resource audio)
PP_Bool StartPlayback(PP_Resource audio)
PP_Bool StopPlayback(PP_Resource audio)

interface PPB_AudioConfig;1.0 page
PP_Resource CreateStereo16Bit(PP_Instance instance, PP_AudioSampleRate sample_rate, uint32_t sample_frame_count)
uint32_t RecommendSampleFrameCount(PP_AudioSampleRate sample_rate, uint32_t requested_sample_frame_count)
PP_Bool IsAudioConfig(PP_Resource resource)
PP_AudioSampleRate GetSampleRate(PP_Resource config)
uint32_t GetSampleFrameCount(PP_Resource config)

interface PPB_AudioConfig;1.1 page
PP_Resource CreateStereo16Bit(PP_Instance instance, PP_AudioSampleRate sample_rate, uint32_t sample_frame_count)
uint32_t RecommendSampleFrameCount(PP_Instance instance, PP_AudioSampleRate sample_rate, uint32_t requested_sample_frame_count)
PP_Bool IsAudioConfig(PP_Resource resource)
PP_AudioSampleRate GetSampleRate(PP_Resource config)
uint32_t GetSampleFrameCount(PP_Resource config)
PP_AudioSampleRate RecommendSampleRate(PP_Instance instance)

// ---- files ------------------------------------------------------------------

interface PPB_FileSystem;1.0
PP_Resource Create(PP_Instance instance, PP_FileSystemType type)
PP_Bool IsFileSystem(PP_Resource resource)
int32_t Open(PP_Resource file_system, int64_t expected_size, struct PP_CompletionCallback callback)
PP_FileSystemType GetType(PP_Resource file_system)

interface PPB_FileRef;1.0
PP_Resource Create(PP_Resource file_system, const char* path)
PP_Bool IsFileRef(PP_Resource resource)
PP_FileSystemType GetFileSystemType(PP_Resource file_ref)
struct PP_Var GetName(PP_Resource file_ref)
struct PP_Var GetPath(PP_Resource file_ref)
PP_Resource GetParent(PP_Resource file_ref)
int32_t MakeDirectory(PP_Resource directory_ref, PP_Bool make_ancestors, struct PP_CompletionCallback callback)
int32_t Touch(PP_Resource file_ref, PP_Time last_access_time, PP_Time last_modified_time, struct PP_CompletionCallback callback)
int32_t Delete(PP_Resource file_ref, struct PP_CompletionCallback callback)
int32_t Rename(PP_Resource file_ref, PP_Resource new_file_ref, struct PP_CompletionCallback callback)

interface PPB_FileRef;1.1
PP_Resource Create(PP_Resource file_system, const char* path)
PP_Bool IsFileRef(PP_Resource resource)
PP_FileSystemType GetFileSystemType(PP_Resource file_ref)
struct PP_Var GetName(PP_Resource file_ref)
struct PP_Var GetPath(PP_Resource file_ref)
PP_Resource GetParent(PP_Resource file_ref)
int32_t MakeDirectory(PP_Resource directory_ref, PP_Bool make_ancestors, struct PP_CompletionCallback callback)
int32_t Touch(PP_Resource file_ref, PP_Time last_access_time, PP_Time last_modified_time, struct PP_CompletionCallback callback)
int32_t Delete(PP_Resource file_ref, struct PP_CompletionCallback callback)
int32_t Rename(PP_Resource file_ref, PP_Resource new_file_ref, struct PP_CompletionCallback callback)
int32_t Query(PP_Resource file_ref, struct PP_FileInfo* info, struct PP_CompletionCallback callback)
int32_t ReadDirectoryEntries(PP_Resource file_ref, struct PP_ArrayOutput output, struct PP_CompletionCallback callback)

interface PPB_FileRef;1.2
PP_Resource Create(PP_Resource file_system, const char* path)
PP_Bool IsFileRef(PP_Resource resource)
PP_FileSystemType GetFileSystemType(PP_Resource file_ref)
struct PP_Var GetName(PP_Resource file_ref)
struct PP_Var GetPath(PP_Resource file_ref)
PP_Resource GetParent(PP_Resource file_ref)
int32_t MakeDirectory(PP_Resource directory_ref, int32_t make_directory_flags, struct PP_CompletionCallback callback)
int32_t Touch(PP_Resource file_ref, PP_Time last_access_time, PP_Time last_modified_time, struct PP_CompletionCallback callback)
int32_t Delete(PP_Resource file_ref, struct PP_CompletionCallback callback)
int32_t Rename(PP_Resource file_ref, PP_Resource new_file_ref, struct PP_CompletionCallback callback)
int32_t Query(PP_Resource file_ref, struct PP_FileInfo* info, struct PP_CompletionCallback callback)
int32_t ReadDirectoryEntries(PP_Resource file_ref, struct PP_ArrayOutput output, struct PP_CompletionCallback callback)

interface PPB_FileIO;1.0
PP_Resource Create(PP_Instance instance)
PP_Bool IsFileIO(PP_Resource resource)
int32_t Open(PP_Resource file_io, PP_Resource file_ref, int32_t open_flags, struct PP_CompletionCallback callback)
int32_t Query(PP_Resource file_io, struct PP_FileInfo* info, struct PP_CompletionCallback callback)
int32_t Touch(PP_Resource file_io, PP_Time last_access_time, PP_Time last_modified_time, struct PP_CompletionCallback callback)
int32_t Read(PP_Resource file_io, int64_t offset, char* buffer, int32_t bytes_to_read, struct PP_CompletionCallback callback)
int32_t Write(PP_Resource file_io, int64_t offset, const char* buffer, int32_t bytes_to_write, struct PP_CompletionCallback callback)
int32_t SetLength(PP_Resource file_io, int64_t length, struct PP_CompletionCallback callback)
int32_t Flush(PP_Resource file_io, struct PP_CompletionCallback callback)
void Close(PP_Resource file_io)

interface PPB_FileIO;1.1
PP_Resource Create(PP_Instance instance)
PP_Bool IsFileIO(PP_Resource resource)
int32_t Open(PP_Resource file_io, PP_Resource file_ref, int32_t open_flags, struct PP_CompletionCallback callback)
int32_t Query(PP_Resource file_io, struct PP_FileInfo* info, struct PP_CompletionCallback callback)
int32_t Touch(PP_Resource file_io, PP_Time last_access_time, PP_Time last_modified_time, struct PP_CompletionCallback callback)
int32_t Read(PP_Resource file_io, int64_t offset, char* buffer, int32_t bytes_to_read, struct PP_CompletionCallback callback)
int32_t Write(PP_Resource file_io, int64_t offset, const char* buffer, int32_t bytes_to_write, struct PP_CompletionCallback callback)
int32_t SetLength(PP_Resource file_io, int64_t length, struct PP_CompletionCallback callback)
int32_t Flush(PP_Resource file_io, struct PP_CompletionCallback callback)
void Close(PP_Resource file_io)
int32_t ReadToArray(PP_Resource file_io, int64_t offset, int32_t max_read_length, struct PP_ArrayOutput* output, struct PP_CompletionCallback callback)

// ---- network ----------------------------------------------------------------
// WebSocket: the page's, or in Node the host's (internal/node/websocket.js
// where Node has none). TCPSocket, UDPSocket and HostResolver are offered
// everywhere, as Chrome offered them; their network operations end with
// PP_ERROR_NOACCESS unless the embedder gives a network (a socket relay,
// or `pexe run --net`).

interface PPB_WebSocket;1.0
PP_Resource Create(PP_Instance instance)
PP_Bool IsWebSocket(PP_Resource resource)
int32_t Connect(PP_Resource web_socket, struct PP_Var url, const struct PP_Var protocols[], uint32_t protocol_count, struct PP_CompletionCallback callback)
int32_t Close(PP_Resource web_socket, uint16_t code, struct PP_Var reason, struct PP_CompletionCallback callback)
int32_t ReceiveMessage(PP_Resource web_socket, struct PP_Var* message, struct PP_CompletionCallback callback)
int32_t SendMessage(PP_Resource web_socket, struct PP_Var message)
uint64_t GetBufferedAmount(PP_Resource web_socket)
uint16_t GetCloseCode(PP_Resource web_socket)
struct PP_Var GetCloseReason(PP_Resource web_socket)
PP_Bool GetCloseWasClean(PP_Resource web_socket)
struct PP_Var GetExtensions(PP_Resource web_socket)
struct PP_Var GetProtocol(PP_Resource web_socket)
PP_WebSocketReadyState GetReadyState(PP_Resource web_socket)
struct PP_Var GetURL(PP_Resource web_socket)

interface PPB_TCPSocket;1.0
PP_Resource Create(PP_Instance instance)
PP_Bool IsTCPSocket(PP_Resource resource)
int32_t Connect(PP_Resource tcp_socket, PP_Resource addr, struct PP_CompletionCallback callback)
PP_Resource GetLocalAddress(PP_Resource tcp_socket)
PP_Resource GetRemoteAddress(PP_Resource tcp_socket)
int32_t Read(PP_Resource tcp_socket, char* buffer, int32_t bytes_to_read, struct PP_CompletionCallback callback)
int32_t Write(PP_Resource tcp_socket, const char* buffer, int32_t bytes_to_write, struct PP_CompletionCallback callback)
void Close(PP_Resource tcp_socket)
int32_t SetOption(PP_Resource tcp_socket, PP_TCPSocket_Option name, struct PP_Var value, struct PP_CompletionCallback callback)

interface PPB_TCPSocket;1.1
PP_Resource Create(PP_Instance instance)
PP_Bool IsTCPSocket(PP_Resource resource)
int32_t Bind(PP_Resource tcp_socket, PP_Resource addr, struct PP_CompletionCallback callback)
int32_t Connect(PP_Resource tcp_socket, PP_Resource addr, struct PP_CompletionCallback callback)
PP_Resource GetLocalAddress(PP_Resource tcp_socket)
PP_Resource GetRemoteAddress(PP_Resource tcp_socket)
int32_t Read(PP_Resource tcp_socket, char* buffer, int32_t bytes_to_read, struct PP_CompletionCallback callback)
int32_t Write(PP_Resource tcp_socket, const char* buffer, int32_t bytes_to_write, struct PP_CompletionCallback callback)
int32_t Listen(PP_Resource tcp_socket, int32_t backlog, struct PP_CompletionCallback callback)
int32_t Accept(PP_Resource tcp_socket, PP_Resource* accepted_tcp_socket, struct PP_CompletionCallback callback)
void Close(PP_Resource tcp_socket)
int32_t SetOption(PP_Resource tcp_socket, PP_TCPSocket_Option name, struct PP_Var value, struct PP_CompletionCallback callback)

interface PPB_TCPSocket;1.2
PP_Resource Create(PP_Instance instance)
PP_Bool IsTCPSocket(PP_Resource resource)
int32_t Bind(PP_Resource tcp_socket, PP_Resource addr, struct PP_CompletionCallback callback)
int32_t Connect(PP_Resource tcp_socket, PP_Resource addr, struct PP_CompletionCallback callback)
PP_Resource GetLocalAddress(PP_Resource tcp_socket)
PP_Resource GetRemoteAddress(PP_Resource tcp_socket)
int32_t Read(PP_Resource tcp_socket, char* buffer, int32_t bytes_to_read, struct PP_CompletionCallback callback)
int32_t Write(PP_Resource tcp_socket, const char* buffer, int32_t bytes_to_write, struct PP_CompletionCallback callback)
int32_t Listen(PP_Resource tcp_socket, int32_t backlog, struct PP_CompletionCallback callback)
int32_t Accept(PP_Resource tcp_socket, PP_Resource* accepted_tcp_socket, struct PP_CompletionCallback callback)
void Close(PP_Resource tcp_socket)
int32_t SetOption(PP_Resource tcp_socket, PP_TCPSocket_Option name, struct PP_Var value, struct PP_CompletionCallback callback)

interface PPB_UDPSocket;1.0
PP_Resource Create(PP_Instance instance)
PP_Bool IsUDPSocket(PP_Resource resource)
int32_t Bind(PP_Resource udp_socket, PP_Resource addr, struct PP_CompletionCallback callback)
PP_Resource GetBoundAddress(PP_Resource udp_socket)
int32_t RecvFrom(PP_Resource udp_socket, char* buffer, int32_t num_bytes, PP_Resource* addr, struct PP_CompletionCallback callback)
int32_t SendTo(PP_Resource udp_socket, const char* buffer, int32_t num_bytes, PP_Resource addr, struct PP_CompletionCallback callback)
void Close(PP_Resource udp_socket)
int32_t SetOption(PP_Resource udp_socket, PP_UDPSocket_Option name, struct PP_Var value, struct PP_CompletionCallback callback)

interface PPB_UDPSocket;1.1
PP_Resource Create(PP_Instance instance)
PP_Bool IsUDPSocket(PP_Resource resource)
int32_t Bind(PP_Resource udp_socket, PP_Resource addr, struct PP_CompletionCallback callback)
PP_Resource GetBoundAddress(PP_Resource udp_socket)
int32_t RecvFrom(PP_Resource udp_socket, char* buffer, int32_t num_bytes, PP_Resource* addr, struct PP_CompletionCallback callback)
int32_t SendTo(PP_Resource udp_socket, const char* buffer, int32_t num_bytes, PP_Resource addr, struct PP_CompletionCallback callback)
void Close(PP_Resource udp_socket)
int32_t SetOption(PP_Resource udp_socket, PP_UDPSocket_Option name, struct PP_Var value, struct PP_CompletionCallback callback)

interface PPB_UDPSocket;1.2
PP_Resource Create(PP_Instance instance)
PP_Bool IsUDPSocket(PP_Resource resource)
int32_t Bind(PP_Resource udp_socket, PP_Resource addr, struct PP_CompletionCallback callback)
PP_Resource GetBoundAddress(PP_Resource udp_socket)
int32_t RecvFrom(PP_Resource udp_socket, char* buffer, int32_t num_bytes, PP_Resource* addr, struct PP_CompletionCallback callback)
int32_t SendTo(PP_Resource udp_socket, const char* buffer, int32_t num_bytes, PP_Resource addr, struct PP_CompletionCallback callback)
void Close(PP_Resource udp_socket)
int32_t SetOption(PP_Resource udp_socket, PP_UDPSocket_Option name, struct PP_Var value, struct PP_CompletionCallback callback)
int32_t JoinGroup(PP_Resource udp_socket, PP_Resource group, struct PP_CompletionCallback callback)
int32_t LeaveGroup(PP_Resource udp_socket, PP_Resource group, struct PP_CompletionCallback callback)

interface PPB_HostResolver;1.0
PP_Resource Create(PP_Instance instance)
PP_Bool IsHostResolver(PP_Resource resource)
int32_t Resolve(PP_Resource host_resolver, const char* host, uint16_t port, const struct PP_HostResolver_Hint* hint, struct PP_CompletionCallback callback)
struct PP_Var GetCanonicalName(PP_Resource host_resolver)
uint32_t GetNetAddressCount(PP_Resource host_resolver)
PP_Resource GetNetAddress(PP_Resource host_resolver, uint32_t index)

interface PPB_NetAddress;1.0
PP_Resource CreateFromIPv4Address(PP_Instance instance, const struct PP_NetAddress_IPv4* ipv4_addr)
PP_Resource CreateFromIPv6Address(PP_Instance instance, const struct PP_NetAddress_IPv6* ipv6_addr)
PP_Bool IsNetAddress(PP_Resource resource)
PP_NetAddress_Family GetFamily(PP_Resource addr)
struct PP_Var DescribeAsString(PP_Resource addr, PP_Bool include_port)
PP_Bool DescribeAsIPv4Address(PP_Resource addr, struct PP_NetAddress_IPv4* ipv4_addr)
PP_Bool DescribeAsIPv6Address(PP_Resource addr, struct PP_NetAddress_IPv6* ipv6_addr)

// ---- video ------------------------------------------------------------------

interface PPB_VideoDecoder;0.1 page
PP_Resource Create(PP_Instance instance)
PP_Bool IsVideoDecoder(PP_Resource resource)
int32_t Initialize(PP_Resource video_decoder, PP_Resource graphics3d_context, PP_VideoProfile profile, PP_Bool allow_software_fallback, struct PP_CompletionCallback callback)
int32_t Decode(PP_Resource video_decoder, uint32_t decode_id, uint32_t size, const void* buffer, struct PP_CompletionCallback callback)
int32_t GetPicture(PP_Resource video_decoder, struct PP_VideoPicture_0_1* picture, struct PP_CompletionCallback callback)
void RecyclePicture(PP_Resource video_decoder, const struct PP_VideoPicture* picture)
int32_t Flush(PP_Resource video_decoder, struct PP_CompletionCallback callback)
int32_t Reset(PP_Resource video_decoder, struct PP_CompletionCallback callback)

interface PPB_VideoDecoder;0.2 page
PP_Resource Create(PP_Instance instance)
PP_Bool IsVideoDecoder(PP_Resource resource)
int32_t Initialize(PP_Resource video_decoder, PP_Resource graphics3d_context, PP_VideoProfile profile, PP_HardwareAcceleration acceleration, struct PP_CompletionCallback callback)
int32_t Decode(PP_Resource video_decoder, uint32_t decode_id, uint32_t size, const void* buffer, struct PP_CompletionCallback callback)
int32_t GetPicture(PP_Resource video_decoder, struct PP_VideoPicture_0_1* picture, struct PP_CompletionCallback callback)
void RecyclePicture(PP_Resource video_decoder, const struct PP_VideoPicture* picture)
int32_t Flush(PP_Resource video_decoder, struct PP_CompletionCallback callback)
int32_t Reset(PP_Resource video_decoder, struct PP_CompletionCallback callback)

interface PPB_VideoDecoder;1.0 page
PP_Resource Create(PP_Instance instance)
PP_Bool IsVideoDecoder(PP_Resource resource)
int32_t Initialize(PP_Resource video_decoder, PP_Resource graphics3d_context, PP_VideoProfile profile, PP_HardwareAcceleration acceleration, struct PP_CompletionCallback callback)
int32_t Decode(PP_Resource video_decoder, uint32_t decode_id, uint32_t size, const void* buffer, struct PP_CompletionCallback callback)
int32_t GetPicture(PP_Resource video_decoder, struct PP_VideoPicture* picture, struct PP_CompletionCallback callback)
void RecyclePicture(PP_Resource video_decoder, const struct PP_VideoPicture* picture)
int32_t Flush(PP_Resource video_decoder, struct PP_CompletionCallback callback)
int32_t Reset(PP_Resource video_decoder, struct PP_CompletionCallback callback)

interface PPB_VideoDecoder;1.1 page
PP_Resource Create(PP_Instance instance)
PP_Bool IsVideoDecoder(PP_Resource resource)
int32_t Initialize(PP_Resource video_decoder, PP_Resource graphics3d_context, PP_VideoProfile profile, PP_HardwareAcceleration acceleration, uint32_t min_picture_count, struct PP_CompletionCallback callback)
int32_t Decode(PP_Resource video_decoder, uint32_t decode_id, uint32_t size, const void* buffer, struct PP_CompletionCallback callback)
int32_t GetPicture(PP_Resource video_decoder, struct PP_VideoPicture* picture, struct PP_CompletionCallback callback)
void RecyclePicture(PP_Resource video_decoder, const struct PP_VideoPicture* picture)
int32_t Flush(PP_Resource video_decoder, struct PP_CompletionCallback callback)
int32_t Reset(PP_Resource video_decoder, struct PP_CompletionCallback callback)

// ---- plugin interfaces (PPP, called by the runtime) -------------------------

interface PPP_Instance;1.0
PP_Bool DidCreate(PP_Instance instance, uint32_t argc, const char* argn[], const char* argv[])
void DidDestroy(PP_Instance instance)
void DidChangeView(PP_Instance instance, const struct PP_Rect* position, const struct PP_Rect* clip)
void DidChangeFocus(PP_Instance instance, PP_Bool has_focus)
PP_Bool HandleDocumentLoad(PP_Instance instance, PP_Resource url_loader)

interface PPP_Instance;1.1
PP_Bool DidCreate(PP_Instance instance, uint32_t argc, const char* argn[], const char* argv[])
void DidDestroy(PP_Instance instance)
void DidChangeView(PP_Instance instance, PP_Resource view)
void DidChangeFocus(PP_Instance instance, PP_Bool has_focus)
PP_Bool HandleDocumentLoad(PP_Instance instance, PP_Resource url_loader)

interface PPP_Messaging;1.0
void HandleMessage(PP_Instance instance, struct PP_Var message)

interface PPP_InputEvent;0.1
PP_Bool HandleInputEvent(PP_Instance instance, PP_Resource input_event)

interface PPP_Graphics_3D;1.0
void Graphics3DContextLost(PP_Instance instance)

interface PPP_MouseLock;1.0
void MouseLockLost(PP_Instance instance)

interface PPP_MessageHandler;0.2
void HandleMessage(PP_Instance instance, void* user_data, const struct PP_Var* message)
void HandleBlockingMessage(PP_Instance instance, void* user_data, const struct PP_Var* message, struct PP_Var* response)
void Destroy(PP_Instance instance, void* user_data)
