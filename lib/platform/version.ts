/** Version of the service and its documents (OpenAPI, SKILL.md); kept equal to package.json by a test. */
export const SERVICE_VERSION = '0.1.0'
