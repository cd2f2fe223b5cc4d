export function showMessage(message) {
  document.getElementById('flash').innerHTML = message;
}
