// What a bundler resolves for a browser build (the "browser" condition of package.json's exports).
throw new Error(
  '@partner-reading/sdk holds your client secret: run it on your servers, never in a browser. Let your own backend call the service and serve your pages.',
);

export {};
